/** RFC 7807 problem details, as ASP.NET Core writes them, and the error type routes throw. */
import type { ProblemDetails } from '../api/wire/index.js';

const TITLES: Record<number, string> = {
  400: 'One or more validation errors occurred.',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors?: Record<string, string[]>,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  body(instance: string): ProblemDetails {
    return {
      type: `https://httpstatuses.io/${this.status}`,
      title: TITLES[this.status] ?? 'Error',
      status: this.status,
      detail: this.detail,
      instance,
      ...(this.errors ? { errors: this.errors } : {}),
    };
  }
}

export const notFound = (what: string, id: string): HttpProblem => new HttpProblem(404, `${what} ${id} was not found`);
export const conflict = (detail: string): HttpProblem => new HttpProblem(409, detail);
export const badRequest = (field: string, message: string): HttpProblem => new HttpProblem(400, message, { [field]: [message] });
