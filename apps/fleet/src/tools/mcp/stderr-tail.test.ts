import { describe, expect, it } from 'vitest';
import { StderrTail } from './stderr-tail.js';

describe('StderrTail', () => {
  it('keeps the last lines, joined across chunks, without blank ones', () => {
    const tail = new StderrTail(2);
    tail.write('one\ntw');
    tail.write(Buffer.from('o\n\n  \nthree\nfou'));
    expect(tail.text()).toBe('two\nthree\nfou');
    tail.write('r\n');
    expect(tail.text()).toBe('three\nfour');
  });

  it('cuts long lines, and is empty when nothing was written', () => {
    const tail = new StderrTail(10, 5);
    expect(tail.text()).toBe('');
    tail.write('abcdefgh\n');
    expect(tail.text()).toBe('abcde…');
  });
});
