"""Errors as JSON ``{"error": {"code", "message", "details"}}``, and their OpenAPI docs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from baccarat.server.api import access
from baccarat.server.api.program_errors import Answer500, ProgramErrors
from baccarat.server.errors import ERRORS, RateLimited, ServiceError
from baccarat.server.observe import metrics

# What the responsible-gaming checks may refuse a round or a seat with.
RESPONSIBLE_ERRORS = ("loss_limit_reached", "wager_limit_reached", "session_limit_reached",
                      "reality_check_due", "self_excluded", "timed_out")  # fmt: skip


class ErrorDetail(BaseModel):
    code: str = Field(description="stable machine-readable code", examples=["insufficient_funds"])
    message: str = Field(description="human-readable explanation")
    details: dict[str, Any] = Field(default_factory=dict)


class ErrorBody(BaseModel):
    error: ErrorDetail


def error_response(error: ServiceError) -> JSONResponse:
    metrics.refused(error.code)
    headers = None
    if isinstance(error, RateLimited):
        headers = {"Retry-After": str(error.retry_after_s)}
    return JSONResponse(error.to_json(), status_code=error.status, headers=headers)


def documented(*codes: str) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route: each status with its codes, in the error shape."""
    by_status: dict[int, list[str]] = {}
    for code in (*codes, "invalid_request", "service_unavailable", "internal_error"):
        by_status.setdefault(ERRORS[code].status, []).append(code)
    responses: dict[int | str, dict[str, Any]] = {}
    for status, listed in sorted(by_status.items()):
        lines = "; ".join(_line(c) for c in sorted(set(listed)))
        responses[status] = {"model": ErrorBody, "description": lines}
    return responses


def _line(code: str) -> str:
    return f"`{code}`: {ERRORS[code].description}"


Handler = TypeVar("Handler", bound=Callable[..., Awaitable[Response]])


def routes(
    router: APIRouter, *common: str, **shared: Any
) -> Callable[..., Callable[[Handler], Handler]]:
    """Routes of ``router`` declared alike: each ``route(method, path, summary, *codes)``
    takes the ``shared`` keyword arguments (a response model, dependencies) and documents
    the ``common`` error codes with its own."""

    def route(method: str, path: str, summary: str, *codes: str) -> Callable[[Handler], Handler]:
        return router.api_route(
            path, methods=[method], responses=documented(*common, *codes), summary=summary,
            **shared,
        )  # fmt: skip

    return route


# A path's integer beyond its bounds (``ids.Id``: the database's BIGINT) names no resource.
_OUT_OF_RANGE = frozenset({"greater_than_equal", "less_than_equal"})


def _validation_code(error: RequestValidationError) -> str:
    problems = error.errors()
    for problem in problems:
        loc = tuple(problem.get("loc", ()))
        if loc[:1] == ("path",) and problem.get("type") in _OUT_OF_RANGE:
            return "not_found"
        if loc and loc[-1] == "mode" and problem.get("type") in ("literal_error", "enum"):
            return "invalid_mode"
    if any(tuple(p.get("loc", ()))[:1] == ("body",) for p in problems):
        return "invalid_body"
    return "invalid_request"


def _jsonable(problems: list[Any]) -> list[dict[str, Any]]:
    cleaned = []
    for problem in problems[:20]:
        cleaned.append(
            {
                "loc": [str(part) for part in problem.get("loc", ())],
                "type": str(problem.get("type", "")),
                "msg": str(problem.get("msg", "")),
            }
        )
    return cleaned


def install(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def service_error(request: Request, error: ServiceError) -> JSONResponse:
        return error_response(error)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        code = _validation_code(error)
        problems = _jsonable(list(error.errors()))
        if code == "not_found":
            return error_response(ServiceError(code, "no such id: ids are 1 to 2^63-1"))
        first = problems[0] if problems else {"loc": [], "msg": "invalid"}
        where = ".".join(first["loc"]) or "request"
        return error_response(ServiceError(code, f"{where}: {first['msg']}", problems=problems))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        code = {
            404: "not_found",
            405: "method_not_allowed",
            413: "payload_too_large",
            415: "unsupported_media_type",
        }.get(error.status_code)
        if code is None:
            code = "invalid_request" if error.status_code < 500 else "internal_error"
        # The guard's refusals (guard.py: body too large or too slow) carry their own error.
        refusal = getattr(error, "error", None)
        if not isinstance(refusal, ServiceError):
            refusal = ServiceError(code, str(error.detail))
        response = error_response(refusal)
        if error.headers:
            response.headers.update(error.headers)
        return response

    _document_app_refusals(app)

    # Program errors: a burst of the same one from a client is written once, and counted;
    # answered inside the app (``Answer500``), the handler only for the outer middleware's.
    recorder = ProgramErrors(app.state.casino.db, app.state.casino.settings.clock)
    app.state.program_errors = recorder
    app.add_middleware(Answer500, recorder=recorder, answer=_internal_error)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> JSONResponse:
        await recorder.record(request, error)
        return _internal_error()


def _document_app_refusals(app: FastAPI) -> None:
    """The refusals the app gives before a route's own code, documented on the routes that
    can answer them, from where they are decided (not by each route's ``documented``):
    an operator's session refused (``access.SESSION_KINDS``, by ``access.admit_session``),
    and ``not_found`` on every route with a path parameter (the guard's answer to a
    character no path holds, and ``api.ids``' to an id beyond the database's integers)."""
    build = app.openapi
    body = {"schema": {"$ref": f"#/components/schemas/{ErrorBody.__name__}"}}

    def add(operation: dict[str, Any], code: str) -> None:
        status, responses = str(ERRORS[code].status), operation["responses"]
        listed = responses.get(status, {}).get("description")
        if listed and f"`{code}`:" in listed:
            return
        lines = "; ".join([*([listed] if listed else []), _line(code)])
        responses[status] = {"description": lines, "content": {"application/json": body}}
        operation["responses"] = dict(sorted(responses.items()))

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = build()
        for path, operations in schema.get("paths", {}).items():
            for method, operation in operations.items():
                if access.refuses_operators(f"{method.upper()} {path}"):
                    add(operation, access.REFUSED)
                if "{" in path:
                    add(operation, "not_found")
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def _internal_error() -> JSONResponse:
    return error_response(ServiceError("internal_error", "an unexpected error occurred"))
