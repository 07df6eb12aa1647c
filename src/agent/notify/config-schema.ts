/**
 * The notifications file's shape as a JSON Schema (docs/agent.md, "Notifications"), checked with ajv
 * before anything is read from it: field names, types, the provider types of the registry and the
 * closed list of event reasons. What a provider needs beyond its shape (a token, an address) is its
 * module's to say (providers/); that alerts name providers of the file is the loader's.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { EVENT_REASONS } from '../events.js';
import { PROVIDER_TYPES } from './provider-types.js';

const text = { type: 'string', minLength: 1 };

export const NOTIFICATIONS_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://packsync.dev/schemas/v1/notifications.json',
  type: 'object',
  additionalProperties: false,
  required: ['providers'],
  properties: {
    providers: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'type'],
        properties: {
          name: text,
          type: { enum: [...PROVIDER_TYPES] },
          address: text,
          addressFile: text,
          tokenFile: text,
          secretFile: text,
          channel: text,
          repository: { type: 'string', pattern: '^[^/\\s]+/[^/\\s]+$' },
        },
      },
    },
    alerts: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['provider'],
        properties: {
          provider: text,
          severity: { enum: ['info', 'error'] },
          reasons: { type: 'array', items: { enum: [...EVENT_REASONS] } },
          objects: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
} as const;

const validate = new Ajv2020({ allErrors: true, strict: true }).compile(NOTIFICATIONS_SCHEMA);

/** `providers[0].type` from `/providers/0/type`. */
function where(path: string): string {
  return path
    .split('/')
    .slice(1)
    .map((seg, i) => (/^\d+$/.test(seg) ? `[${seg}]` : i === 0 ? seg : `.${seg}`))
    .join('');
}

function message(e: ErrorObject): string {
  const at = where(e.instancePath);
  const params = e.params as { additionalProperty?: string; missingProperty?: string; allowedValues?: unknown[]; limit?: number };
  if (/^alerts\[\d+\]\.reasons/.test(at)) return `${at.replace(/\[\d+\]$/, '')} must be a list of ${EVENT_REASONS.join(', ')}`;
  if (/^alerts\[\d+\]\.objects/.test(at)) return `${at.replace(/\[\d+\]$/, '')} must be a list of globs such as "Deployment/*"`;
  switch (e.keyword) {
    case 'additionalProperties':
      return `${at || 'the file'}: unknown field ${params.additionalProperty ?? '?'}`;
    case 'required':
      return at === '' ? `needs a non-empty ${params.missingProperty ?? ''}: list` : `${at} needs ${params.missingProperty ?? '?'}`;
    case 'enum':
      return `${at} must be one of ${(params.allowedValues ?? []).join(', ')}`;
    case 'minItems':
      return `needs a non-empty ${at}: list`;
    case 'pattern':
      return `${at} must be owner/repo`;
    case 'minLength':
      return `${at} must not be empty`;
    default:
      return `${at || 'the file'} ${e.message ?? 'is not valid'}`;
  }
}

/** The problems of the file's shape, one line each (empty: it has the right shape). */
export function shapeProblems(doc: unknown): string[] {
  if (validate(doc)) return [];
  return [...new Set((validate.errors ?? []).map(message))];
}
