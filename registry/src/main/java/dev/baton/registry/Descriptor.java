package dev.baton.registry;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/** An OCI content descriptor, as listed by the referrers endpoint. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Descriptor(
        @JsonProperty("mediaType") String mediaType,
        @JsonProperty("digest") String digest,
        @JsonProperty("size") long size,
        @JsonProperty("artifactType") String artifactType,
        @JsonProperty("annotations") Map<String, String> annotations) {}
