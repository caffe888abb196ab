/**
 * `contractClient(baseUrl)`: fetch for e2e tests that parses the body and checks every response
 * against the served OpenAPI document (see openapi-contract.ts) before returning it. Pass
 * `{ contract: false }` for requests the document deliberately does not describe (unknown paths,
 * wrong methods).
 */
import { contractFor } from './openapi-contract.js';

export interface ContractResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
  readonly text: string;
}

export function contractClient(baseUrl: string) {
  return async function request(
    path: string,
    init: RequestInit & { contract?: boolean } = {},
  ): Promise<ContractResponse> {
    const { contract = true, ...rest } = init;
    const res = await fetch(`${baseUrl}${path}`, { redirect: 'manual', ...rest });
    const text = await res.text();
    const contentType = res.headers.get('content-type') ?? '';
    let body: unknown = text;
    if (contentType.startsWith('application/json') && text !== '') body = JSON.parse(text);
    if (contract) {
      (await contractFor(baseUrl)).expectMatches(
        rest.method ?? 'GET',
        path,
        res.status,
        body,
        contentType, // '' when the answer has no Content-Type
      );
    }
    return { status: res.status, headers: res.headers, body, text };
  };
}
