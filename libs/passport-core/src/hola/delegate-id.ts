/**
 * @module hola/delegate-id
 * What a subagent line's delegate id must be beyond its length and printable characters (the parser's
 * other rules), shared by the parser and by `/api/isauthorizedsigner`, so that no delegation is
 * authorized for an id no line can carry. Only subagent lines reach these (regular expressions are fine
 * here, off the standard line's path).
 */

/**
 * Whether a delegate id shows what it is: something visible (an id of U+3000 or U+3164 alone shows
 * nothing to a relying party), and nothing hidden or unassigned.
 */
export function isVisibleText(text: string): boolean {
  // A letter, digit, punctuation or symbol that is not itself blank (marks alone, fillers and private
  // use show nothing a reader can check: U+0300, U+16FE4, U+E000, noncharacters).
  return (
    !HIDDEN_OR_UNASSIGNED.test(text) &&
    /(?![\p{Default_Ignorable_Code_Point}\u2800\u3164])[\p{L}\p{N}\p{P}\p{S}]/u.test(text)
  );
}

/**
 * Characters that carry hidden text or name nothing: default-ignorable code points (variation selectors
 * among them can hide a word behind "BOT"), private use, unassigned code points and
 * noncharacters.
 */
const HIDDEN_OR_UNASSIGNED = /[\p{Default_Ignorable_Code_Point}\p{Co}\p{Cn}]/u;

/** Whether a delegation's id is one a HOLA line can carry: no `/` (the line's separator), and visible. */
export function isLineDelegateId(text: string): boolean {
  return !text.includes('/') && isVisibleText(text);
}
