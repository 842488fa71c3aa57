"""The Anthropic Messages API through the official SDK (imported here and only here).

The key comes from ``ANTHROPIC_API_KEY``; the SDK itself honours ``ANTHROPIC_BASE_URL``
(gateways, and the tests' local fake server). Rate limits, overload (429, 529, 5xx) and a
lost connection are retried here, not by the SDK, so that every wait is said ("provider
overloaded, retrying in 8 s (2/6)"): the provider's ``retry-after`` when it sends one,
otherwise ``llm.retry_wait`` seconds doubling up to a minute; ``llm.max_retries`` times. Requests are not streamed: ``llm.max_tokens`` stays below the SDK's non-streaming
limit (about 21k tokens), which a request over it reports as a usage error.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tddgit.agent.providers import Reply, Request, Usage
from tddgit.errors import Refused, UsageError

if TYPE_CHECKING:
    from tddgit.agent.settings import Settings

KEY_ENV = "ANTHROPIC_API_KEY"
MAX_BACKOFF = 60.0  # seconds: the longest wait of our own backoff
MAX_WAIT = 300.0  # seconds: the longest retry-after honoured


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, settings: Settings, on_wait: Callable[[str], None] | None = None) -> None:
        key = os.environ.get(KEY_ENV, "").strip()
        if not key:
            raise UsageError(
                f"{KEY_ENV} is not set: the model cannot be asked",
                f'export {KEY_ENV}=<your key> (or set llm.provider = "replay" for a scripted run)',
            )
        import anthropic

        self._sdk = anthropic
        # tddgit retries itself (patiently, saying so): the SDK's own retries are silent
        self._client = anthropic.Anthropic(api_key=key, timeout=settings.timeout, max_retries=0)
        self._retries = settings.max_retries
        self._first_wait = settings.retry_wait
        self._on_wait = on_wait
        self._tried = 0  # retries made for the current request

    def model_name(self, configured: str) -> str:
        return configured

    def complete(self, request: Request) -> Reply:
        sdk = self._sdk
        self._tried = 0
        for attempt in range(1, self._retries + 1):
            try:
                return self._complete(request, final=False)
            except (sdk.RateLimitError, sdk.InternalServerError, sdk.APIConnectionError) as exc:
                if _header(exc, "x-should-retry") == "false":  # the provider says: do not
                    raise self._unavailable(exc) from None
                wait = _retry_after(exc)
                if wait is None:
                    wait = min(self._first_wait * 2 ** (attempt - 1), MAX_BACKOFF)
                what = "rate-limited" if isinstance(exc, sdk.RateLimitError) else "overloaded"
                if isinstance(exc, sdk.APIConnectionError):
                    what = "unreachable"
                if self._on_wait is not None:
                    self._on_wait(
                        f"provider {what}, retrying in {_seconds(wait)} ({attempt}/{self._retries})"
                    )
                time.sleep(min(wait, MAX_WAIT))
                self._tried = attempt
        return self._complete(request, final=True)

    def _unavailable(self, exc: Exception) -> Refused:
        if isinstance(exc, self._sdk.APIConnectionError):
            return Refused(
                f"cannot reach the model provider: {exc.message}",
                "check the network (and ANTHROPIC_BASE_URL), then try again",
            )
        status = getattr(exc, "status_code", "?")
        return Refused(
            f"the model provider is unavailable (HTTP {status}"
            f"{_kind(getattr(exc, 'body', None))}) after {self._tried} retries",
            "try again later, or raise llm.max_retries",
        )

    def _complete(self, request: Request, final: bool) -> Reply:
        """One request; a transient failure (rate limit, overload, connection) is raised as
        the SDK's error unless this is the ``final`` attempt."""
        sdk = self._sdk
        try:
            message = self._client.messages.create(**request.body())
        except (sdk.AuthenticationError, sdk.PermissionDeniedError) as exc:
            raise UsageError(
                f"the API key was rejected (HTTP {exc.status_code})",
                f"check {KEY_ENV} (and ANTHROPIC_BASE_URL if you use a gateway)",
            ) from None
        except sdk.NotFoundError:
            raise UsageError(
                f"the provider does not know the model {request.model!r} (HTTP 404)",
                "set llm.model or pass --model with a model id the provider serves",
            ) from None
        except (sdk.RateLimitError, sdk.InternalServerError, sdk.APIConnectionError) as exc:
            if not final:
                raise
            raise self._unavailable(exc) from None
        except sdk.APIStatusError as exc:
            raise Refused(
                f"the provider refused the request (HTTP {exc.status_code}"
                f"{_kind(exc.body)}): {_api_message(exc.body) or exc.message}",
                "see the transcript for the request; check llm.model and llm.max_tokens",
            ) from None
        except UnicodeError as exc:
            raise Refused(
                f"the request was not sent: it holds text that is not valid Unicode ({exc})",
                "see the transcript for the request",
            ) from None
        except ValueError as exc:  # the SDK's own checks, e.g. "streaming is required"
            raise UsageError(
                f"the request was not sent: {exc}", "lower llm.max_tokens (at most 20000)"
            ) from None
        raw: dict[str, Any] = message.to_dict(mode="json", warnings=False)
        return Reply(message=raw, usage=Usage.from_api(raw.get("usage")))


def _retry_after(exc: Exception) -> float | None:
    """The provider's ``retry-after`` (seconds, or ``retry-after-ms``), if it sent one."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = _header(exc, name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) / scale)
        except ValueError:  # an HTTP date: not worth parsing, the backoff applies
            continue
    return None


def _header(exc: Exception, name: str) -> str | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    value = headers.get(name) if headers is not None else None
    return str(value) if value is not None else None


def _seconds(wait: float) -> str:
    return f"{wait:.0f} s" if wait >= 1 or wait == 0 else f"{wait:.2f} s"


def _kind(body: object) -> str:
    error = body.get("error") if isinstance(body, dict) else None
    kind = error.get("type") if isinstance(error, dict) else None
    return f", {kind}" if isinstance(kind, str) else ""


def _api_message(body: object) -> str:
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return " ".join(message.split())[:200] if isinstance(message, str) else ""
