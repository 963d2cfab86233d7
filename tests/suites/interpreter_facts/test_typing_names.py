"""typing's special forms as parameters: pytest names them by `__name__`,
which they have from Python 3.10 on (attrs' `test_is_class_var`)."""

import typing
import typing as t
from typing import ClassVar

import pytest


@pytest.mark.parametrize(
    "annot", [typing.ClassVar, t.Optional, ClassVar, typing.Union, "typing.ClassVar"]
)
def test_special_forms(annot):
    pass
