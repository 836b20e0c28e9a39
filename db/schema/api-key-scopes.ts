// What a service API key may do (docs/api.md#service-api-keys). Constants only, free of any import: the
// table constrains its column to these, the procedures' schemas accept them, and the operator console lists
// them (test/unit/console-layers.test.ts allows the console such modules only).

export const apiKeyScopes = ["flags:read", "notifications:write", "audit:read"] as const;
export type ApiKeyScope = (typeof apiKeyScopes)[number];

/** The characters of a secret shown in lists, enough to recognise a key: `rk_` and 8 more. */
export const API_KEY_PREFIX_LENGTH = 11;
