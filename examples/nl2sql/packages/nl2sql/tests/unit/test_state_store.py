def test_state_store_roundtrip():
    pass


def test_docker_images_satisfy_requires_python():
    pass
