"""The Anthropic Messages API through the official SDK (imported here and only here).

The key comes from ``ANTHROPIC_API_KEY``; the SDK itself honours ``ANTHROPIC_BASE_URL``
(gateways, and the tests' local fake server). Rate limits and overload (429, 529, 5xx) are
retried by the SDK with its backoff, honouring ``retry-after``; ``llm.max_retries`` sets how
often. Requests are not streamed: ``llm.max_tokens`` stays below the SDK's non-streaming
limit (about 21k tokens), which a request over it reports as a usage error.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from tddgit.agent.providers import Reply, Request, Usage
from tddgit.errors import Refused, UsageError

if TYPE_CHECKING:
    from tddgit.agent.settings import Settings

KEY_ENV = "ANTHROPIC_API_KEY"


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, settings: Settings) -> None:
        key = os.environ.get(KEY_ENV, "").strip()
        if not key:
            raise UsageError(
                f"{KEY_ENV} is not set: the model cannot be asked",
                f'export {KEY_ENV}=<your key> (or set llm.provider = "replay" for a scripted run)',
            )
        import anthropic

        self._sdk = anthropic
        self._client = anthropic.Anthropic(
            api_key=key, timeout=settings.timeout, max_retries=settings.max_retries
        )
        self._retries = settings.max_retries

    def model_name(self, configured: str) -> str:
        return configured

    def complete(self, request: Request) -> Reply:
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
        except (sdk.RateLimitError, sdk.InternalServerError) as exc:
            raise Refused(
                f"the model provider is unavailable (HTTP {exc.status_code}"
                f"{_kind(exc.body)}) after {self._retries} retries",
                "try again later, or raise llm.max_retries",
            ) from None
        except sdk.APIConnectionError as exc:
            raise Refused(
                f"cannot reach the model provider: {exc.message}",
                "check the network (and ANTHROPIC_BASE_URL), then try again",
            ) from None
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


def _kind(body: object) -> str:
    error = body.get("error") if isinstance(body, dict) else None
    kind = error.get("type") if isinstance(error, dict) else None
    return f", {kind}" if isinstance(kind, str) else ""


def _api_message(body: object) -> str:
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return " ".join(message.split())[:200] if isinstance(message, str) else ""
