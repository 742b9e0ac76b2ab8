import { describe, expect, it } from 'vitest';
import { resolveRuntimeOptions } from '../config/options.js';
import { cellOf, cellOfMessage, cellOfRoot, cellPrefix, cellPrefixes, cellsGlob, inCell, servedCells } from './cells.js';

describe('cells', () => {
  it('leave a one-cell deployment exactly as it was', () => {
    const runtime = resolveRuntimeOptions();
    expect(runtime.cells).toBe(1);
    expect(cellPrefixes(runtime)).toEqual(['{tierflow}']);
    expect(inCell(runtime, 0)).toBe(runtime);
    expect(cellOf(runtime, 'any-root.0-0.out')).toBe(runtime);
  });

  it('give each cell a hash tag of its own, inside the prefix', () => {
    expect(cellPrefixes(resolveRuntimeOptions({ cells: 3 }))).toEqual(['{tierflow:0}', '{tierflow:1}', '{tierflow:2}']);
    expect(cellPrefix('app{orders}x', 4, 3)).toBe('app{orders:3}x');
    // One glob for every cell, escaped: a SCAN or an ACL rule covers them all.
    expect(cellsGlob({ prefix: '{t*}', cells: 1 })).toBe('{t\\*}');
    expect(cellsGlob({ prefix: '{t*}', cells: 3 })).toBe('{t\\*:*}');
    const cell = inCell(resolveRuntimeOptions({ cells: 4, prefix: '{t}' }), 2);
    expect(cell).toMatchObject({ prefix: '{t:2}', cells: 1 });
  });

  it('place a root by its id alone, stably, and every message of its run with it', () => {
    // FNV-1a of the id's bytes: fixed values, so a change of the hash (which would lose runs) fails here.
    expect(['a', 'root-1', '7f0c2a3e-1b2c-4d5e-8f90-123456789abc'].map((id) => cellOfRoot(id, 16))).toEqual([12, 11, 14]);
    const root = '7f0c2a3e-1b2c-4d5e-8f90-123456789abc';
    for (const id of [root, `${root}.0-0`, `${root}.0-0.1-2`, `${root}.0-0.1-2.out`]) expect(cellOfMessage(id, 16)).toBe(14);
  });

  it('spread random roots evenly', () => {
    const counts = new Array<number>(8).fill(0);
    for (let index = 0; index < 8_000; index++) counts[cellOfRoot(crypto.randomUUID(), 8)]!++;
    for (const count of counts) expect(count).toBeGreaterThan(800);
  });

  it('read the cells a worker serves, and refuse one the deployment lacks', () => {
    expect(servedCells(undefined, 3)).toEqual([0, 1, 2]);
    expect(servedCells('2, 0,2', 3)).toEqual([0, 2]);
    expect(() => servedCells('0,3,x', 3)).toThrow(/"3", "x" are not a cell of this deployment \(0 to 2\)/);
  });

  it('are bounded', () => {
    expect(() => resolveRuntimeOptions({ cells: 0 })).toThrow(/cells/);
    expect(() => resolveRuntimeOptions({ cells: 257 })).toThrow(/cells/);
  });
});
