/**
 * @module hola/delegate-id
 * What a subagent line's delegate id must be beyond its length and printable characters (the parser's
 * other rules), shared by the parser and by `/api/isauthorizedsigner`, so that no delegation is
 * authorized for an id no line can carry. Only subagent lines reach these (regular expressions are fine
 * here, off the standard line's path).
 */

/**
 * Whether a delegate id shows something: not only spaces, fillers or blanks (a probe: ids of U+3000 or
 * U+3164 alone were accepted, and a relying party showed nothing).
 */
export function isVisibleText(text: string): boolean {
  return /[^\s\p{Default_Ignorable_Code_Point}\u2800]/u.test(text);
}

/** Whether a delegation's id is one a HOLA line can carry: no `/` (the line's separator), and visible. */
export function isLineDelegateId(text: string): boolean {
  return !text.includes('/') && isVisibleText(text);
}
