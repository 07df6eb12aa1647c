import { describe, expect, it } from 'vitest';
import {
  normalizeAppDetails,
  normalizeDeployment,
  normalizePackage,
  readId,
  readIdText,
  readList,
  readState,
} from '../../src/api/tolerant.js';
import { DEPLOYMENT_STATUS_CODES, PACKAGE_STATE_CODES, TASK_STATE_CODES } from '../../src/api/wire/index.js';
import type { V1AppDetailsViewModel, V1DeploymentViewModel, V1PackageViewModel } from '../../src/api/wire/index.js';

const ID = '3c8574eb-c0f6-426f-e557-08de6eb82a5e';

function codeOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return (e as { code?: unknown }).code;
  }
  return undefined;
}

describe('readId', () => {
  it('accepts a bare string and objects with id, packageId, deploymentId or flowId', () => {
    expect(readId(ID, 'createFlow')).toBe(ID);
    expect(readId(` {${ID}} `, 'createFlow')).toBe(ID);
    expect(readId({ id: ID }, 'createFlow')).toBe(ID);
    expect(readId({ packageId: ID }, 'importApp')).toBe(ID);
    expect(readId({ deploymentId: ID }, 'addDeployment')).toBe(ID);
    expect(readId({ flowId: ID }, 'createFlow')).toBe(ID);
    expect(readId({ id: ID, packageId: 'other' }, 'importApp')).toBe(ID);
  });

  it('rejects bodies without an id as API_INVALID_RESPONSE', () => {
    expect(codeOf(() => readId({}, 'createFlow'))).toBe('API_INVALID_RESPONSE');
    expect(codeOf(() => readId('', 'createFlow'))).toBe('API_INVALID_RESPONSE');
    expect(codeOf(() => readId(42, 'createFlow'))).toBe('API_INVALID_RESPONSE');
    expect(codeOf(() => readId([ID], 'createFlow'))).toBe('API_INVALID_RESPONSE');
  });

  it('reads raw text: JSON or an unquoted GUID', () => {
    expect(readIdText(`"${ID}"`, 'importApp')).toBe(ID);
    expect(readIdText(`${ID}\n`, 'importApp')).toBe(ID);
    expect(readIdText(`{"packageId":"${ID}"}`, 'importApp')).toBe(ID);
    expect(codeOf(() => readIdText('not an id', 'importApp'))).toBe('API_INVALID_RESPONSE');
    expect(codeOf(() => readIdText('', 'importApp'))).toBe('API_INVALID_RESPONSE');
  });
});

describe('readState', () => {
  it('maps strings case-insensitively and numbers by the code table', () => {
    expect(readState('completed', PACKAGE_STATE_CODES)).toBe('Completed');
    expect(readState('WAITING_FOR_CONTENT', PACKAGE_STATE_CODES)).toBe('WaitingForContent');
    expect(readState(4, PACKAGE_STATE_CODES)).toBe('WaitingForContent');
    expect(readState('1', TASK_STATE_CODES)).toBe('Running');
    expect(readState('not started', DEPLOYMENT_STATUS_CODES)).toBe('NotStarted');
  });

  it('reads a number by its code, not by the position of the name', () => {
    const codes = { Late: 7, Early: 0, Middle: 3 } as const;
    expect(readState(7, codes)).toBe('Late');
    expect(readState('3', codes)).toBe('Middle');
    expect(readState(1, codes)).toBeUndefined();
    expect(readState(2, codes)).toBeUndefined();
  });

  it('is undefined for unknown values', () => {
    expect(readState('Exploded', PACKAGE_STATE_CODES)).toBeUndefined();
    expect(readState(99, PACKAGE_STATE_CODES)).toBeUndefined();
    expect(readState(1.5, PACKAGE_STATE_CODES)).toBeUndefined();
    expect(readState(null, PACKAGE_STATE_CODES)).toBeUndefined();
  });

  it('normalisers keep unknown values as strings and leave other fields alone', () => {
    const p = normalizePackage({ id: ID, state: 2, size: 3 } as unknown as V1PackageViewModel);
    expect(p).toEqual({ id: ID, state: 'Completed', size: 3 });
    const d = normalizeDeployment({ id: ID, status: 7, contentUpdateStatus: 'completed' } as unknown as V1DeploymentViewModel);
    expect(d).toEqual({ id: ID, status: '7', contentUpdateStatus: 'Completed' });
  });
});

describe('readList', () => {
  it('accepts a bare array or {items}', () => {
    expect(readList([1], 'x')).toEqual([1]);
    expect(readList({ items: [2] }, 'x')).toEqual([2]);
    expect(readList({ Items: [3] }, 'x')).toEqual([3]);
    expect(codeOf(() => readList({}, 'x'))).toBe('API_INVALID_RESPONSE');
  });
});

describe('normalizeAppDetails', () => {
  const app = (versions: unknown): V1AppDetailsViewModel => ({ id: ID, name: '7-Zip', versions }) as unknown as V1AppDetailsViewModel;

  it("app-versions-shape-crashed-update: reads a version's release time from createdDate or timestamp (RoboPackCLI reads either)", () => {
    const v = normalizeAppDetails(
      app([
        { id: ID, version: '24.09', createdDate: '2026-11-20T00:00:00+00:00' },
        { id: ID, version: '24.08', timestamp: '2026-10-01T00:00:00+00:00' },
      ]),
      'getApp',
    ).versions;
    expect(v.map((x) => [x.version, x.createdDate])).toEqual([
      ['24.09', '2026-11-20T00:00:00+00:00'],
      ['24.08', '2026-10-01T00:00:00+00:00'],
    ]);
  });

  it('app-versions-shape-crashed-update: versions that are not a list, or a version without a version or time, are API_INVALID_RESPONSE (was a TypeError in update)', () => {
    for (const bad of [null, undefined, 'x', [null], [{ id: ID }], [{ id: ID, version: '1.0' }]])
      expect(
        codeOf(() => normalizeAppDetails(app(bad), 'getApp')),
        JSON.stringify(bad),
      ).toBe('API_INVALID_RESPONSE');
  });
});
