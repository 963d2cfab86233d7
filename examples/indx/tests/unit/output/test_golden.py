def test_index_json_is_byte_stable(tmp_path):
    pass
