/**
 * A strict reader of the Prometheus text exposition format 0.0.4, written from the format's
 * description (not from prom-client), for tests: every line must be a `# HELP`, a `# TYPE` or a
 * sample `name{label="value",...} number`; every sample must belong to a family declared by a TYPE
 * line before it; label values are unescaped (\\, \", \n). Histogram families are checked as they are
 * read: per label set, buckets cumulative and ending at `le="+Inf"` equal to `_count`.
 */
export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface PromFamily {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  readonly help: string;
  readonly samples: PromSample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/;

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  // Prometheus reads values with Go's ParseFloat, which takes NaN in any case (prom-client writes "Nan").
  if (/^nan$/i.test(text)) return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad sample value ${text}`);
  return Number(text);
}

function parseLabels(text: string | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text ?? '';
  while (rest !== '') {
    const match = LABEL.exec(rest);
    if (!match) throw new Error(`bad labels {${text}}`);
    if (match[1] in labels) throw new Error(`label ${match[1]} twice in {${text}}`);
    labels[match[1]] = match[2].replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(match[0].length);
  }
  return labels;
}

const SUFFIXES: Record<PromFamily['type'], string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

export function parsePrometheusText(text: string): Map<string, PromFamily> {
  const families = new Map<string, PromFamily>();
  const help = new Map<string, string>();
  if (!text.endsWith('\n')) throw new Error('the text must end with a newline');
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    let match: RegExpExecArray | null;
    if ((match = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line))) {
      help.set(match[1], match[2]);
    } else if (
      (match = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line))
    ) {
      if (families.has(match[1])) throw new Error(`TYPE of ${match[1]} twice`);
      families.set(match[1], {
        name: match[1],
        type: match[2] as PromFamily['type'],
        help: help.get(match[1]) ?? '',
        samples: [],
      });
    } else if (line.startsWith('#')) {
      continue; // other comments are allowed
    } else if ((match = SAMPLE.exec(line))) {
      const [, name, labelText, valueText] = match;
      const family = [...families.values()].find((f) =>
        SUFFIXES[f.type].some((s) => `${f.name}${s}` === name),
      );
      if (!family) throw new Error(`sample ${name} without a TYPE line before it`);
      family.samples.push({ name, labels: parseLabels(labelText), value: parseValue(valueText) });
    } else {
      throw new Error(`unreadable line: ${line}`);
    }
  }
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

const keyOf = (labels: Readonly<Record<string, string>>): string =>
  JSON.stringify(
    Object.entries(labels)
      .filter(([k]) => k !== 'le')
      .sort(([a], [b]) => a.localeCompare(b)),
  );

export interface HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  /** Upper bound → cumulative count, in order. */
  readonly buckets: [number, number][];
  readonly sum: number;
  readonly count: number;
}

/** The series of a histogram family, one per label set (without `le`). */
export function histogramSeries(family: PromFamily): HistogramSeries[] {
  const byKey = new Map<
    string,
    { labels: Record<string, string>; buckets: [number, number][]; sum?: number; count?: number }
  >();
  for (const s of family.samples) {
    const key = keyOf(s.labels);
    const { le, ...labels } = s.labels;
    const series = byKey.get(key) ?? { labels, buckets: [] };
    byKey.set(key, series);
    if (s.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${s.name} without le`);
      series.buckets.push([parseValue(le), s.value]);
    } else if (s.name.endsWith('_sum')) series.sum = s.value;
    else series.count = s.value;
  }
  return [...byKey.values()].map((s) => {
    if (s.sum === undefined || s.count === undefined)
      throw new Error(`${family.name}: series without _sum or _count`);
    return { labels: s.labels, buckets: s.buckets, sum: s.sum, count: s.count };
  });
}

function checkHistogram(family: PromFamily): void {
  for (const series of histogramSeries(family)) {
    const bounds = series.buckets.map(([le]) => le);
    if (bounds.at(-1) !== Infinity) throw new Error(`${family.name}: last bucket is not +Inf`);
    for (let i = 1; i < series.buckets.length; i++) {
      if (!(bounds[i] > bounds[i - 1])) throw new Error(`${family.name}: bucket bounds not increasing`);
      if (series.buckets[i][1] < series.buckets[i - 1][1])
        throw new Error(`${family.name}: buckets not cumulative`);
    }
    if (series.buckets.at(-1)![1] !== series.count) throw new Error(`${family.name}: +Inf bucket ≠ _count`);
  }
}
