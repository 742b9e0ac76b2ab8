import { z } from 'zod';

/**
 * How the deployment metric store lays out what it keeps (docs/operations.md#the-deployment-metric-store).
 * Each field of a store hash is one figure of one series, its name saying which:
 *
 *   `<kind>|<metric name>|<part>|<attributes>`
 *
 * kind `c` (a counter: a monotonic sum), `u` (an up-down counter), `h` (a histogram), `g` (a
 * gauge); part `v` (a sum's or a gauge's value), `n` (a histogram's count), `s` (its sum) or
 * `b<upper bound>` (its count in the bucket up to that bound, `binf` the last); attributes the
 * canonical JSON of the point's attributes, sorted by key, so the same labels always make the same
 * field. A metric's name holds no `|` (OTel names are letters, digits, `_ . - /`). The metric's
 * description is kept in `m|<name>` (in the totals), and the points a full hash turned away in
 * `!dropped`. Pure.
 */

export const STORED_KINDS = ['counter', 'updown', 'histogram', 'gauge'] as const;
export type StoredKind = (typeof STORED_KINDS)[number];

const KIND_CODES = { counter: 'c', updown: 'u', histogram: 'h', gauge: 'g' } as const satisfies Record<StoredKind, string>;
const KIND_OF_CODE: Readonly<Record<string, StoredKind>> = { c: 'counter', u: 'updown', h: 'histogram', g: 'gauge' };

/** The field that counts the points a full hash turned away. */
export const DROPPED_FIELD = '!dropped';

/** An attribute's value as the store keeps it: what OTel attributes hold, arrays included. */
export type StoredAttributeValue = string | number | boolean | readonly (string | number | boolean | null)[];
export type StoredAttributes = Readonly<Record<string, StoredAttributeValue>>;

const attributeValueSchema = z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number(), z.boolean(), z.null()]))]);
const attributesSchema = z.array(z.tuple([z.string(), attributeValueSchema]));

/** A figure's place in its series. */
export type FieldPart = { readonly part: 'value' } | { readonly part: 'count' } | { readonly part: 'sum' } | { readonly part: 'bucket'; readonly le: number };

/** A field, decoded. */
export interface StoreField {
  readonly kind: StoredKind;
  readonly name: string;
  readonly attributes: StoredAttributes;
  /** The canonical attributes, as in the field: a series' identity with the name. */
  readonly attributesKey: string;
  readonly part: FieldPart;
}

/** The canonical encoding of attributes: their entries sorted by key, as JSON; undefined values left out. */
export function canonicalAttributes(attributes: Readonly<Record<string, unknown>>): string {
  const entries = Object.entries(attributes)
    .filter(([, value]) => attributeValueSchema.safeParse(value).success)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(entries);
}

function partCode(part: FieldPart): string {
  switch (part.part) {
    case 'value':
      return 'v';
    case 'count':
      return 'n';
    case 'sum':
      return 's';
    case 'bucket':
      return part.le === Infinity ? 'binf' : `b${String(part.le)}`;
  }
}

/** A series' field for one of its figures. `attributesKey` from {@link canonicalAttributes}. */
export function storeField(kind: StoredKind, name: string, attributesKey: string, part: FieldPart): string {
  return `${KIND_CODES[kind]}|${name}|${partCode(part)}|${attributesKey}`;
}

/** The field describing a metric (its kind, unit and description). */
export function metaField(name: string): string {
  return `m|${name}`;
}

function partOf(code: string): FieldPart | null {
  if (code === 'v') return { part: 'value' };
  if (code === 'n') return { part: 'count' };
  if (code === 's') return { part: 'sum' };
  if (code === 'binf') return { part: 'bucket', le: Infinity };
  if (code.startsWith('b')) {
    const le = Number(code.slice(1));
    return code.length > 1 && Number.isFinite(le) ? { part: 'bucket', le } : null;
  }
  return null;
}

/** A field of a series, decoded; null for anything else (a description, the dropped count, a field some other version wrote). */
export function decodeField(field: string): StoreField | null {
  const [code = '', name = '', part = ''] = field.split('|', 3);
  const kind = KIND_OF_CODE[code];
  if (kind === undefined || name === '') return null;
  const attributesKey = field.slice(code.length + name.length + part.length + 3);
  const decodedPart = partOf(part);
  if (decodedPart === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(attributesKey);
  } catch {
    return null;
  }
  const attributes = attributesSchema.safeParse(json);
  if (!attributes.success) return null;
  return { kind, name, attributes: Object.fromEntries(attributes.data), attributesKey, part: decodedPart };
}

/** A metric's description, as kept in `m|<name>`. */
export const metricMetaSchema = z.object({ kind: z.enum(STORED_KINDS), unit: z.string(), description: z.string() });
export type MetricMeta = z.infer<typeof metricMetaSchema>;

/** A number as the store writes it (HINCRBYFLOAT's answer, or ours): finite, or nothing. */
export const storedNumberSchema = z
  .string()
  .transform((text) => Number(text))
  .pipe(z.number().finite());
