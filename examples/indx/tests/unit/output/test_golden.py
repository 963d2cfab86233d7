from indx.core.models import Chunk, Space
from indx.output.index_json import dumps


def test_index_json_is_byte_stable(tmp_path):
    chunks = [Chunk(0, "a")]
    assert dumps(Space("docs"), chunks) == dumps(Space("docs"), chunks)
