import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PROMETHEUS_SERIES, TIERFLOW_INSTRUMENTS, seriesOf } from '../support/prometheus-names.js';
import { startPrometheus, type PrometheusServer } from '../support/prometheus.js';
import { promqlMetricNames } from '../support/promql-metrics.js';

const read = (path: string): string => readFileSync(new URL(`../../infra/${path}`, import.meta.url), 'utf8');

// The parts of Grafana's dashboard model the dashboard relies on; Grafana ignores what it lacks.
const datasourceSchema = z.object({ type: z.literal('prometheus'), uid: z.string() });
const rowSchema = z.object({ id: z.number().int(), type: z.literal('row'), title: z.string().min(1) });
const gridPosSchema = z.object({ x: z.number().int().min(0), y: z.number().int().min(0), w: z.number().int().min(1).max(24), h: z.number().int().min(1) });
const panelSchema = z.object({
  id: z.number().int(),
  type: z.enum(['timeseries', 'stat', 'bargauge', 'table']),
  title: z.string().min(1),
  datasource: datasourceSchema,
  gridPos: gridPosSchema,
  targets: z.array(z.object({ refId: z.string().min(1), expr: z.string().min(1), datasource: datasourceSchema.optional(), legendFormat: z.string().optional() })).min(1),
});
const dashboardSchema = z.object({
  uid: z.string().min(1),
  title: z.string().min(1),
  schemaVersion: z.number().int(),
  templating: z.object({ list: z.array(z.object({ name: z.string(), type: z.string() })) }),
  panels: z.array(z.union([rowSchema, panelSchema])).min(1),
});
type Panel = z.infer<typeof panelSchema>;

const dashboard = dashboardSchema.parse(JSON.parse(read('grafana/dashboards/tierflow.json')));
const panels = dashboard.panels.filter((panel): panel is Panel => panel.type !== 'row');
const exprs = panels.flatMap((panel) => panel.targets.map((target) => ({ panel: panel.title, expr: target.expr })));
/** The provisioned data source's uid (a YAML scalar of our own file). */
const provisionedUid = z
  .string()
  .min(1)
  .parse(/^\s*uid:\s*(\S+)\s*$/m.exec(read('grafana/provisioning/datasources/prometheus.yml'))?.[1]);

describe('the Grafana dashboard (infra/grafana/dashboards/tierflow.json)', () => {
  it('reads the provisioned Prometheus data source in every panel and query', () => {
    for (const panel of panels) {
      expect({ panel: panel.title, uid: panel.datasource.uid }).toEqual({ panel: panel.title, uid: provisionedUid });
      for (const target of panel.targets) expect(target.datasource?.uid ?? provisionedUid).toBe(provisionedUid);
    }
  });

  it('has unique panel ids and, in each panel, unique query ids', () => {
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of panels) expect(new Set(panel.targets.map((target) => target.refId)).size).toBe(panel.targets.length);
  });

  it('names, in every query, only metrics Tierflow exports', () => {
    for (const { panel, expr } of exprs) {
      const names = promqlMetricNames(expr);
      expect(names.length, `${panel}: ${expr}`).toBeGreaterThan(0);
      expect({ panel, unknown: names.filter((name) => !PROMETHEUS_SERIES.has(name)) }).toEqual({ panel, unknown: [] });
    }
  });

  it('draws every instrument', () => {
    const read = new Set(exprs.flatMap(({ expr }) => promqlMetricNames(expr)));
    const undrawn = TIERFLOW_INSTRUMENTS.filter((instrument) => !seriesOf(instrument).some((series) => read.has(series.metric))).map((instrument) => instrument.name);
    expect(undrawn).toEqual([]);
  });

  it('offers the $job variable its queries filter on', () => {
    expect(dashboard.templating.list.map((variable) => variable.name)).toContain('job');
    for (const { expr } of exprs) expect(expr).toContain('job="$job"');
  });

  describe('in a real Prometheus', () => {
    let prometheus: PrometheusServer;
    beforeAll(async () => {
      prometheus = await startPrometheus([]);
    });
    afterAll(async () => {
      await prometheus?.stop();
    });

    it('every query parses (with Grafana’s variables filled in as Grafana does)', async () => {
      for (const { panel, expr } of exprs) {
        const promql = expr.replaceAll('$__rate_interval', '1m').replaceAll('$job', 'tierflow');
        await expect(prometheus.query(promql), panel).resolves.toBeInstanceOf(Array);
      }
    });
  });
});
