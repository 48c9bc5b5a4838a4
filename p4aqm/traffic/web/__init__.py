"""Web users after Mah's HTTP model: one TCP connection per request/response (HTTP/1.0)."""
