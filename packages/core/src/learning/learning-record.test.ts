import { describe, expect, it } from 'vitest';
import { AGGREGATION_SUMMARY } from '../aggregated-outcome.js';
import { LEARNING_RECORDS_CAP, learningMetadata, learningRecordSchema, learningRecordsOf } from './learning-record.js';
import { record } from './test-records.js';

const summary = (metadata: Record<string, unknown>) => ({ artifact_type: AGGREGATION_SUMMARY, content_ref: null, inline_content: '{}', metadata }) as never;

describe('learningRecordsOf', () => {
  it('reads the records of the aggregation_summary artifact', () => {
    const routed = record({ routing: { mode: 'shadow', reason: 'sampled', fixed: 'a', learned: 'b', expected_gain: 0.2 } });
    const outcome = { artifacts: [{ artifact_type: 'code', content_ref: null, inline_content: 'x', metadata: { learning: [record()] } }, summary({ learning: [routed, record()] })] as never[] };
    expect(learningRecordsOf(outcome)).toEqual({ records: [routed, record()], dropped: 0 });
  });

  it('has nothing to read without a summary or without records', () => {
    expect(learningRecordsOf({ artifacts: [] })).toEqual({ records: [], dropped: 0 });
    expect(learningRecordsOf({ artifacts: [summary({})] })).toEqual({ records: [], dropped: 0 });
  });

  it('skips and counts what does not parse, and adds the count reported from below', () => {
    const outcome = { artifacts: [summary({ learning: [record(), { task_type: 'code' }, 7, record({ confidence: 2 })], learning_dropped: 5 })] };
    expect(learningRecordsOf(outcome)).toEqual({ records: [record()], dropped: 8 });
    expect(learningRecordsOf({ artifacts: [summary({ learning: 'many', learning_dropped: -1 })] })).toEqual({ records: [], dropped: 1 });
  });

  it('reads at most the cap', () => {
    const many = Array.from({ length: LEARNING_RECORDS_CAP + 3 }, () => record());
    const { records, dropped } = learningRecordsOf({ artifacts: [summary({ learning: many })] });
    expect(records).toHaveLength(LEARNING_RECORDS_CAP);
    expect(dropped).toBe(3);
  });
});

describe('learningMetadata', () => {
  it('keeps the first records up to the cap and counts the rest with those dropped below', () => {
    const many = Array.from({ length: LEARNING_RECORDS_CAP + 2 }, () => record());
    const metadata = learningMetadata(many, 4);
    expect(metadata.learning).toHaveLength(LEARNING_RECORDS_CAP);
    expect(metadata.learning_dropped).toBe(6);
    expect(learningMetadata([record()])).toEqual({ learning: [record()], learning_dropped: 0 });
  });

  it('writes records that parse back', () => {
    expect(learningRecordSchema.parse(JSON.parse(JSON.stringify(record())))).toEqual(record());
  });
});
