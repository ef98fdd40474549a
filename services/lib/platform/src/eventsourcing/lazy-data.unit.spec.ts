import { describe, expect, it } from 'vitest';
import { dataJson, withDataOf, withLazyData } from './lazy-data';

describe('withLazyData', () => {
  const large = (value: string) => JSON.stringify({ files: Array.from({ length: 2000 }, (_, index) => `${value}-${index}-${'x'.repeat(40)}`) });

  it('parses a large payload only when data is read, and once', () => {
    const broken = large('a').slice(0, -1);
    const event = withLazyData({ type: 'IndexPublished' }, broken);
    expect(event.type).toBe('IndexPublished');
    expect(() => event.data).toThrow(SyntaxError);

    const read = withLazyData({ type: 'IndexPublished' }, large('b'));
    const first = read.data as { files: string[] };
    expect(first.files).toHaveLength(2000);
    expect(read.data).toBe(first);
  });

  it('parses a small payload at once', () => {
    expect(() => withLazyData({ type: 'PackageUploaded' }, '{not json')).toThrow(SyntaxError);
    expect(withLazyData({ type: 'PackageUploaded' }, '{"name":"hello"}').data).toEqual({ name: 'hello' });
  });

  it('looks like a plain object to spreads and JSON', () => {
    const event = withLazyData({ id: 'e1' }, large('c'));
    expect({ ...event }).toEqual({ id: 'e1', data: JSON.parse(large('c')) });
    expect(JSON.parse(JSON.stringify(withLazyData({ id: 'e2' }, large('d'))))).toEqual({ id: 'e2', data: JSON.parse(large('d')) });
  });

  it('passes a large unread payload on as its own text, never parsed', () => {
    const broken = large('e').slice(0, -1);
    const message = withDataOf({ id: 'm1' }, withLazyData({ id: 'e1' }, broken));
    expect(dataJson(message)).toBe(broken);
    expect(() => message.data).toThrow(SyntaxError);
  });

  it('serialises data that was read, and passes small data by reference', () => {
    const event = withLazyData({ id: 'e3' }, large('f'));
    const read = event.data;
    expect(dataJson(withDataOf({ id: 'm3' }, event))).toBe(JSON.stringify(read));
    const small = withLazyData({ id: 'e4' }, '{"n":4}');
    expect(withDataOf({ id: 'm4' }, small).data).toBe(small.data);
    expect(dataJson({ data: { n: 5 } })).toBe('{"n":5}');
  });
});
