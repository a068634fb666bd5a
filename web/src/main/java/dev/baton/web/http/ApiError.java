package dev.baton.web.http;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The one shape of every error response: a stable snake_case {@code code} for programs, a
 * {@code message} for people, and {@code field} when a single request field is at fault.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ApiError(String code, String message, String field) {}
