/** The part of `vary` (jshttp, no bundled types) the app uses: a field added to a Vary header's value. */
declare module 'vary' {
  interface Vary {
    /** `header` with `field` added unless it is there already (or the value is `*`). */
    append(header: string, field: string): string;
  }
  const vary: Vary;
  export default vary;
}
