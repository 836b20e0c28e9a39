// The API key procedures' input limits (docs/api.md#service-api-keys). Constants only, free of any import:
// the procedures' schemas (schemas.ts) and the operator console's own checks (console/src/views/ApiKeys.tsx)
// read these, so the two can never disagree.

/** Characters of a key's name. */
export const MAX_API_KEY_NAME_LENGTH = 100;
/** Characters of a key's producer (the namespace of its eventIds). */
export const MAX_API_KEY_PRODUCER_LENGTH = 100;
/** Days a key may live (expiresInDays). */
export const MAX_API_KEY_DAYS = 3650;
