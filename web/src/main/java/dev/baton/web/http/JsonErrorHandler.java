package dev.baton.web.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.baton.protocol.message.Wire;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's own error responses (414 URI too long and 431 headers too large from its HTTP parser,
 * and anything else Jetty answers before a request reaches Javalin) in the one JSON error shape,
 * instead of Jetty's HTML page. Errors from routes go through {@link ErrorHandling}.
 */
public final class JsonErrorHandler extends ErrorHandler {
    @Override
    protected void generateResponse(
            Request request, Response response, int status, String message, Throwable cause, Callback callback) {
        byte[] body;
        try {
            body = Wire.mapper().writeValueAsBytes(error(status));
        } catch (JsonProcessingException e) {
            callback.failed(e);
            return;
        }
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    /** The error for a status; messages are fixed texts, never Jetty's (which may echo input). */
    static ApiError error(int status) {
        return switch (status) {
            case 400 -> new ApiError("bad_request", "the HTTP request is malformed", null);
            case 404 -> new ApiError("route_not_found", "no such endpoint", null);
            case 405 -> new ApiError("method_not_allowed", "this endpoint does not support that method", null);
            case 413 -> new ApiError("payload_too_large", "request body is too large", null);
            case 414 -> new ApiError("uri_too_long", "the request URI is longer than the server accepts", null);
            case 431 ->
                new ApiError("headers_too_large", "the request headers are larger than the server accepts", null);
            case 500 -> new ApiError("internal_error", "the server failed to handle this request; see its log", null);
            case 503 ->
                new ApiError("unavailable", "the server is not accepting requests now (starting or stopping)", null);
            default -> new ApiError("http_" + status, "the HTTP layer refused the request", null);
        };
    }
}
