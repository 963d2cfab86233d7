import pytest

from tests.helpers import require_extra


@pytest.mark.integration
@require_extra("docling")
def test_docling_parses_sample_pdf():
    pass
