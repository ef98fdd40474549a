import { describe, expect, it } from 'vitest';
import { httpDate, parseRange, planResponse, strongEtag } from './conditional-request';

const file = { etag: strongEtag('abc'), lastModifiedMs: Date.parse('Tue, 05 Mar 2024 10:00:00 GMT'), size: 1000 };

describe('planResponse', () => {
  it('answers 200 without conditions', () => {
    expect(planResponse({}, file)).toEqual({ status: 200 });
  });

  it('answers 304 when If-None-Match lists the ETag, weak or strong, or *', () => {
    expect(planResponse({ ifNoneMatch: '"abc"' }, file)).toEqual({ status: 304 });
    expect(planResponse({ ifNoneMatch: '"x", W/"abc"' }, file)).toEqual({ status: 304 });
    expect(planResponse({ ifNoneMatch: '*' }, file)).toEqual({ status: 304 });
    expect(planResponse({ ifNoneMatch: '"other"' }, file)).toEqual({ status: 200 });
  });

  it('lets If-None-Match decide over If-Modified-Since', () => {
    expect(planResponse({ ifNoneMatch: '"other"', ifModifiedSince: 'Wed, 06 Mar 2024 10:00:00 GMT' }, file)).toEqual({ status: 200 });
  });

  it('answers 304 for If-Modified-Since at or after Last-Modified, 200 before or unparsable', () => {
    expect(planResponse({ ifModifiedSince: 'Tue, 05 Mar 2024 10:00:00 GMT' }, file)).toEqual({ status: 304 });
    expect(planResponse({ ifModifiedSince: 'Tue, 05 Mar 2024 09:59:59 GMT' }, file)).toEqual({ status: 200 });
    expect(planResponse({ ifModifiedSince: 'yesterday' }, file)).toEqual({ status: 200 });
  });

  it('answers 206 for one satisfiable range and 416 past the end', () => {
    expect(planResponse({ range: 'bytes=0-99' }, file)).toEqual({ status: 206, start: 0, end: 99 });
    expect(planResponse({ range: 'bytes=900-' }, file)).toEqual({ status: 206, start: 900, end: 999 });
    expect(planResponse({ range: 'bytes=-10' }, file)).toEqual({ status: 206, start: 990, end: 999 });
    expect(planResponse({ range: 'bytes=990-5000' }, file)).toEqual({ status: 206, start: 990, end: 999 });
    expect(planResponse({ range: 'bytes=1000-' }, file)).toEqual({ status: 416 });
  });

  it('serves the whole file for several ranges, malformed ranges and a stale If-Range', () => {
    expect(planResponse({ range: 'bytes=0-1,5-6' }, file)).toEqual({ status: 200 });
    expect(planResponse({ range: 'items=0-1' }, file)).toEqual({ status: 200 });
    expect(planResponse({ range: 'bytes=9-3' }, file)).toEqual({ status: 200 });
    expect(planResponse({ range: 'bytes=0-9', ifRange: '"old"' }, file)).toEqual({ status: 200 });
    expect(planResponse({ range: 'bytes=0-9', ifRange: '"abc"' }, file)).toEqual({ status: 206, start: 0, end: 9 });
    expect(planResponse({ range: 'bytes=0-9', ifRange: httpDate(file.lastModifiedMs) }, file)).toEqual({ status: 206, start: 0, end: 9 });
  });

  it('treats a suffix range of zero bytes, or any range of an empty file, as unsatisfiable', () => {
    expect(parseRange('bytes=-0', 10)).toBe('unsatisfiable');
    expect(parseRange('bytes=-5', 0)).toBe('unsatisfiable');
  });
});

describe('httpDate', () => {
  it('formats RFC 1123 dates in GMT', () => {
    expect(httpDate(file.lastModifiedMs)).toBe('Tue, 05 Mar 2024 10:00:00 GMT');
  });
});
