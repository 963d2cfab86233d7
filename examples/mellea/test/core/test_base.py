def test_cblock_repr_plain_string_returns_value():
    assert str("hi") == "hi"


def test_template_render_missing_field_raises_keyerror():
    try:
        "{name}".format()
    except KeyError:
        pass
