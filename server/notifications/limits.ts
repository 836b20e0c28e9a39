// The admin test notification's input limits (docs/api.md#limits). Constants only, free of any import: the
// procedures' schemas (schemas.ts) and the operator console's test sender (console/src/views/TestSender.tsx)
// read these, so the two can never disagree.

/** Characters of a notification's event type. */
export const MAX_TYPE_LENGTH = 100;
/** Characters of a notification's title. */
export const MAX_TITLE_LENGTH = 200;
/** Characters of a notification's body. */
export const MAX_BODY_LENGTH = 2000;
/** Characters of the link a notification opens. */
export const MAX_URL_LENGTH = 2048;
