import { describe, expect, it } from 'vitest';
import { ApiError, codeForStatus, describeProblem, httpError, isRetryable } from '../../src/api/errors.js';

describe('ApiError', () => {
  it('maps statuses to stable codes', () => {
    expect([400, 401, 403, 404, 408, 409, 422, 429, 418, 500, 502, 503, 504].map(codeForStatus)).toEqual([
      'API_BAD_REQUEST',
      'API_UNAUTHORIZED',
      'API_FORBIDDEN',
      'API_NOT_FOUND',
      'API_TIMEOUT',
      'API_CONFLICT',
      'API_BAD_REQUEST',
      'API_RATE_LIMITED',
      'API_BAD_REQUEST',
      'API_UNAVAILABLE',
      'API_UNAVAILABLE',
      'API_UNAVAILABLE',
      'API_UNAVAILABLE',
    ]);
  });

  it('formats `operation: status reason: problem`', () => {
    const e = httpError('createFlow', 404, { title: 'Not Found', detail: 'no such patch group', traceId: 'abc' });
    expect(e).toBeInstanceOf(ApiError);
    expect(e.name).toBe('ApiError');
    expect(e.message).toBe('createFlow: 404 Not Found: Not Found: no such patch group');
    expect(e.operation).toBe('createFlow');
    expect(e.status).toBe(404);
    expect(e.problem?.detail).toBe('no such patch group');
    expect(httpError('getFlow', 500, null).message).toBe('getFlow: 500 Internal Server Error');
    expect(describeProblem({ message: 'plain' })).toBe('plain');
  });

  it('says which failures a plain repeat may fix', () => {
    const mk = (code: ConstructorParameters<typeof ApiError>[0]): ApiError => new ApiError(code, 'x', { operation: 'getFlow' });
    expect(isRetryable(mk('API_RATE_LIMITED'))).toBe(true);
    expect(isRetryable(mk('API_UNAVAILABLE'))).toBe(true);
    expect(isRetryable(mk('API_TIMEOUT'))).toBe(true);
    expect(isRetryable(mk('API_OUTCOME_UNKNOWN'))).toBe(false);
    expect(isRetryable(mk('API_CONFLICT'))).toBe(false);
    expect(isRetryable(mk('API_NOT_FOUND'))).toBe(false);
    expect(isRetryable(new Error('x'))).toBe(false);
  });
});
