import { describe, expect, it } from 'vitest';
import { BadRequestError, parseListQuery, ValidationError } from '@crudsmith/core';

// A route that pages only (the example's hand-written users lists) takes its bounds from
// the same parser the generated lists use.
describe('parseListQuery with pagesOnly', () => {
  const PAGES = { maxLimit: 100, defaultLimit: 10, pagesOnly: true } as const;
  const sorted = { sortColumns: [], sortOrders: [] };

  it('answers page 1 of defaultLimit rows when the request names no page', () => {
    expect(parseListQuery({}, PAGES)).toEqual({
      mode: 'page',
      page: 1,
      itemsPerPage: 10,
      offset: 0,
      limit: 10,
      ...sorted,
    });
    expect(parseListQuery({ page: '3' }, PAGES)).toEqual({
      mode: 'page',
      page: 3,
      itemsPerPage: 10,
      offset: 20,
      limit: 10,
      ...sorted,
    });
    expect(parseListQuery({ items_per_page: '4', page: '2' }, PAGES)).toMatchObject({
      page: 2,
      itemsPerPage: 4,
      offset: 4,
      limit: 4,
    });
    expect(parseListQuery({ itemsPerPage: '100' }, PAGES)).toMatchObject({ page: 1, itemsPerPage: 100 });
  });

  it('refuses a page below 1, a page size outside 1 to maxLimit, and what is no plain integer (422)', () => {
    for (const query of [
      { page: '0' },
      { items_per_page: '0' },
      { items_per_page: '101' },
      { page: 'abc' },
      { page: '1e3' },
      { page: ['1', '2'] },
    ]) {
      expect(() => parseListQuery(query, PAGES)).toThrow(ValidationError);
    }
  });

  it('leaves offset, limit and cursor to the route: they are no pagination keys of a paged-only list', () => {
    expect(parseListQuery({ offset: '5', limit: '2', cursor: '' }, PAGES)).toMatchObject({
      mode: 'page',
      page: 1,
      itemsPerPage: 10,
      offset: 0,
      limit: 10,
    });
    expect(parseListQuery({ page: '2', limit: '-1' }, PAGES)).toMatchObject({ mode: 'page', page: 2 });
  });

  it('changes nothing without the option: no parameter is an offset window, and mixing forms is a 400', () => {
    const limits = { maxLimit: 100, defaultLimit: 10 };
    expect(parseListQuery({}, limits)).toEqual({ mode: 'offset', offset: 0, limit: 10, ...sorted });
    expect(parseListQuery({ page: '2' }, limits)).toMatchObject({
      mode: 'page',
      page: 2,
      itemsPerPage: 10,
      offset: 10,
    });
    expect(() => parseListQuery({ page: '2', limit: '5' }, limits)).toThrow(BadRequestError);
    expect(parseListQuery({ cursor: '' }, limits)).toMatchObject({ mode: 'cursor', cursor: null, limit: 100 });
  });
});
