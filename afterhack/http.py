"""What the JSON API (config.api) and /mcp (mcp_server.transport) answer alike, for any app to use: the error an
endpoint raises, the bearer challenge of a 401, the Permissions-Policy header, a validation error's path in the input.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """An error answered as {"error", "detail"} with its status code."""

    def __init__(self, status: int, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail, self.extra = status, code, detail, extra


def bearer_challenge(authorization: str) -> str:
    """The WWW-Authenticate of a 401 to a request with this Authorization header (RFC 6750, 3): `Bearer`, and
    `error="invalid_token"` when it sent a bearer token that was refused (unknown, expired or revoked), so a client
    can tell "get a new token" from "send one". /mcp answers the same."""
    scheme, _, token = authorization.strip().partition(" ")
    return 'Bearer error="invalid_token"' if scheme.lower() == "bearer" and token.strip() else "Bearer"


def in_the_input(error: dict[str, Any]) -> dict[str, Any]:
    """django-ninja's error with its location as a path in the input: without the part of the request it names
    first ("body", "query", "path") and, in a body, the endpoint's parameter name ("payload") after it."""
    location = tuple(error.get("loc", ()))
    return {**error, "loc": location[2:] if location[:1] == ("body",) else location[1:]}


# The powerful browser features the app never uses, denied to its pages and to anything they could embed (the
# admin's and Swagger UI's pages included): a page taken over by injected markup still cannot reach the camera, the
# microphone, the location, payments or devices. Writing to the clipboard stays allowed to the app's own pages
# (a new token's copy button, which still copies on a click); reading it is denied. Only features Chromium knows are
# named: an unknown one is a console warning on every page ("bluetooth" was, in Chromium 150).
PERMISSIONS_POLICY = ", ".join(
    [
        *(
            f"{feature}=()"
            for feature in (
                "accelerometer", "autoplay", "browsing-topics", "camera", "clipboard-read",
                "display-capture", "encrypted-media", "fullscreen", "geolocation", "gyroscope", "hid",
                "idle-detection", "magnetometer", "microphone", "midi", "payment", "picture-in-picture",
                "publickey-credentials-get", "screen-wake-lock", "serial", "usb", "xr-spatial-tracking",
            )
        ),
        "clipboard-write=(self)",
    ]
)  # fmt: skip
