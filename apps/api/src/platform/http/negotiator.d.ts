/** The part of `negotiator` (jshttp, no bundled types) the app uses: choosing a media type by Accept. */
declare module 'negotiator' {
  export default class Negotiator {
    constructor(request: { readonly headers: Readonly<Record<string, string | string[] | undefined>> });
    /** The most preferred of `available` by the Accept header's q-values and specificity, or undefined. */
    mediaType(available?: readonly string[]): string | undefined;
  }
}
