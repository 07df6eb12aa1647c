/** The error body of a failed call. */

/** RFC 7807 problem details, as ASP.NET Core writes them. */
export interface ProblemDetails {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  /** Field errors, ASP.NET Core validation style: field name -> messages. */
  errors?: Record<string, string[]>;
  [extension: string]: unknown;
}
