/** Paging on the wire: the query every list operation takes and the header every page carries. */

/** The `X-Pagination` response header (seen: RoboPackCLI `test_parse_pagination_current_api_shape`). */
export interface PaginationHeader {
  totalCount: number;
  itemsPerPage: number;
  page: number;
  totalPages: number;
  hasNext: boolean;
  hasPrevious: boolean;
}

export interface PagingQuery {
  page?: number;
  itemsPerPage?: number;
  disablePaging?: boolean;
  sortBy?: string;
  sortDesc?: boolean;
}
