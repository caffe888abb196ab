/** Which form GET /api/metrics answers, by the Accept header's q-values (found by a probe: they were ignored). */
import { wantsPrometheus } from './metrics.controller.js';

describe('wantsPrometheus', () => {
  it.each([
    [undefined, false],
    ['application/json', false],
    ['text/plain', true],
    ['text/plain; version=0.0.4', true],
    ['text/plain;q=0', false],
    ['application/json;q=0.1, text/plain', true],
    ['text/plain;q=0.4, application/json;q=0.5', false],
    // A scraper's usual header, and a browser's.
    ['application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1', true],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', false],
    ['*/*', false],
  ])('Accept %j → Prometheus text %s', (accept, expected) => {
    expect(wantsPrometheus(accept)).toBe(expected);
  });
});
