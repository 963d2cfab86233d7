# pytest: e2e, ollama
"""An example that skips itself the way a test module would."""
import pytest

pytest.skip("needs a pulled model", allow_module_level=True)
