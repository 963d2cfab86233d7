import pytest

# llm: the planner calls the chat model directly (needs OPENAI_API_KEY).
pytestmark = pytest.mark.llm


def test_planner_builds_join_plan():
    pass
