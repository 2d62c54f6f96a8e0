# Typing for the parts of pytest-twisted the tests use (the package ships no types):
# the decorators keep the signatures of the functions they wrap.
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from twisted.internet.defer import Deferred

_P = ParamSpec("_P")
_T = TypeVar("_T")

def ensureDeferred(
    f: Callable[_P, Coroutine[Any, Any, _T]],
) -> Callable[_P, Deferred[_T]]: ...
def async_yield_fixture(
    f: Callable[_P, AsyncIterator[_T]],
) -> Callable[_P, AsyncIterator[_T]]: ...
def async_fixture(
    f: Callable[_P, Coroutine[Any, Any, _T]],
) -> Callable[_P, Coroutine[Any, Any, _T]]: ...
