def test_demo_project_question_answers():
    pass
