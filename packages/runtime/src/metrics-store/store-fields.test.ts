import { describe, expect, it } from 'vitest';
import { canonicalAttributes, decodeField, storeField, type FieldPart, type StoredKind } from './store-fields.js';
import { addHash, cumulativeBuckets, emptyMetrics, seriesOf } from './store-read.js';

describe('canonicalAttributes', () => {
  it.each([
    [{}, '[]'],
    [{ b: '2', a: 1 }, '[["a",1],["b","2"]]'],
    [{ 'tierflow.tier': 'fleet', 'error.type': 'timeout' }, '[["error.type","timeout"],["tierflow.tier","fleet"]]'],
    [{ a: true, gone: undefined, list: ['x', 1] }, '[["a",true],["list",["x",1]]]'],
    [{ quote: 'a"|b' }, '[["quote","a\\"|b"]]'],
  ])('%j → %s', (attributes, expected) => {
    expect(canonicalAttributes(attributes)).toBe(expected);
  });

  it('is the same whatever order the attributes came in', () => {
    expect(canonicalAttributes({ x: '1', y: '2', z: '3' })).toBe(canonicalAttributes({ z: '3', x: '1', y: '2' }));
  });
});

describe('storeField and decodeField', () => {
  const cases: [StoredKind, string, Record<string, string | number>, FieldPart, string][] = [
    ['counter', 'tierflow.runs.finished', { 'tierflow.status': 'success' }, { part: 'value' }, 'c|tierflow.runs.finished|v|[["tierflow.status","success"]]'],
    ['updown', 'jobs', {}, { part: 'value' }, 'u|jobs|v|[]'],
    ['histogram', 'tierflow.hop.duration', { 'tierflow.tier': 'fleet' }, { part: 'count' }, 'h|tierflow.hop.duration|n|[["tierflow.tier","fleet"]]'],
    ['histogram', 'tierflow.hop.duration', {}, { part: 'sum' }, 'h|tierflow.hop.duration|s|[]'],
    ['histogram', 'h', {}, { part: 'bucket', le: 0.005 }, 'h|h|b0.005|[]'],
    ['histogram', 'h', {}, { part: 'bucket', le: 67108864 }, 'h|h|b67108864|[]'],
    ['histogram', 'h', { a: '|x|' }, { part: 'bucket', le: Infinity }, 'h|h|binf|[["a","|x|"]]'],
    [
      'gauge',
      'tierflow.queue.depth',
      { 'tierflow.queue.state': 'waiting', 'tierflow.tier': 'fleet' },
      { part: 'value' },
      'g|tierflow.queue.depth|v|[["tierflow.queue.state","waiting"],["tierflow.tier","fleet"]]',
    ],
  ];

  it.each(cases)('%s %s %j %j ↔ %s', (kind, name, attributes, part, field) => {
    expect(storeField(kind, name, canonicalAttributes(attributes), part)).toBe(field);
    expect(decodeField(field)).toEqual({ kind, name, attributes, attributesKey: canonicalAttributes(attributes), part });
  });

  it.each(['m|tierflow.runs.finished', '!dropped', 'x|name|v|[]', 'c||v|[]', 'c|name|q|[]', 'c|name|b|[]', 'c|name|bx|[]', 'c|name|v|not json', 'c|name|v|{"a":1}', 'c|name|v|[["a",{}]]', 'c|name|v'])(
    '%s is no field of a series',
    (field) => {
      expect(decodeField(field)).toBeNull();
    },
  );
});

describe('addHash', () => {
  const field = (kind: StoredKind, name: string, attributes: Record<string, string>, part: FieldPart) => storeField(kind, name, canonicalAttributes(attributes), part);

  it('adds the figures of several hashes up by series, and reads descriptions and drops', () => {
    const runs = field('counter', 'runs', { status: 'success' }, { part: 'value' });
    const hop = (part: FieldPart) => field('histogram', 'hop', { tier: 'fleet' }, part);
    const first = {
      [runs]: '3',
      [hop({ part: 'count' })]: '2',
      [hop({ part: 'sum' })]: '0.5',
      [hop({ part: 'bucket', le: 0.1 })]: '1',
      [hop({ part: 'bucket', le: Infinity })]: '1',
      'm|runs': '{"kind":"counter","unit":"{run}","description":"Runs"}',
      '!dropped': '2',
    };
    const second = { [runs]: '4.5', [hop({ part: 'count' })]: '1', [hop({ part: 'sum' })]: '0.25', [hop({ part: 'bucket', le: 1 })]: '1', '!dropped': '1' };
    const metrics = addHash(addHash(emptyMetrics(), first), second);
    expect(seriesOf(metrics, 'runs').map(({ value, attributes }) => ({ value, attributes }))).toEqual([{ value: 7.5, attributes: { status: 'success' } }]);
    const [histogram] = seriesOf(metrics, 'hop');
    expect(histogram).toMatchObject({ kind: 'histogram', count: 3, sum: 0.75, attributes: { tier: 'fleet' } });
    expect(cumulativeBuckets(histogram!)).toEqual([
      { le: 0.1, count: 1 },
      { le: 1, count: 2 },
      { le: Infinity, count: 3 },
    ]);
    expect(metrics.meta.get('runs')).toEqual({ kind: 'counter', unit: '{run}', description: 'Runs' });
    expect(metrics.dropped).toBe(3);
  });

  it('leaves out what does not decode: a value that is no number, a field of another shape, a description that is not one', () => {
    const metrics = addHash(emptyMetrics(), { 'c|runs|v|[]': 'NaN', 'c|ok|v|[]': '1', 'c|inf|v|[]': 'inf', 'zz|what': '1', 'm|runs': '{', 'm|ok': '{"kind":"sometimes"}', '!dropped': 'x' });
    expect([...metrics.series.values()].map((series) => series.name)).toEqual(['ok']);
    expect(metrics.meta.size).toBe(0);
    expect(metrics.dropped).toBe(0);
  });

  it('reads only the metrics asked for, and the dropped count', () => {
    const metrics = addHash(emptyMetrics(), { 'c|a|v|[]': '1', 'c|b|v|[]': '2', 'h|a.b|n|[]': '3', 'm|b': '{"kind":"counter","unit":"","description":""}', '!dropped': '4' }, new Set(['a', 'a.b']));
    expect([...metrics.series.values()].map((series) => series.name)).toEqual(['a', 'a.b']);
    expect(metrics.meta.size).toBe(0);
    expect(metrics.dropped).toBe(4);
  });

  it('keeps the kind first read when a name comes back as another', () => {
    const metrics = addHash(emptyMetrics(), { 'c|x|v|[]': '2', 'g|x|v|[]': '5' });
    expect(seriesOf(metrics, 'x')).toMatchObject([{ kind: 'counter', value: 2 }]);
  });
});
