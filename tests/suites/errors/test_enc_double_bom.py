﻿def test_double_bom():
    pass
