def test_index_command_writes_state():
    pass
