// Pure rule of the inbox search: a case-insensitive substring in which every character is literal.

/**
 * The ILIKE pattern that finds `text` anywhere. `\` is PostgreSQL's default LIKE escape character, so
 * escaping it and the two wildcards (`%`, `_`) makes them match themselves.
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
