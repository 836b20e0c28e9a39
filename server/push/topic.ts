// RFC 8030 §5.4's Topic: a pure rule with no imports, so the inputs' schemas (which the apps' types load) read it.

/** At most 32 characters of the URL- and filename-safe base64 alphabet. */
export const TOPIC_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
export const TOPIC_RULE = "must be 1 to 32 characters of A-Z a-z 0-9 - _ (RFC 8030 Topic)";
