// Validating a request against its operation: path, query, headers and body through the
// generated validators, every problem collected (one 422 lists them all). A raw body (a
// JSON-RPC envelope) is handed over as text: its dispatcher answers its problems.
import type { IncomingMessage } from 'node:http';
import type { ApiDocument } from '../../api.ts';
import type { OperationSpec, Validator } from '../../contract.ts';
import { toValidationItems, type ValidationErrorItem } from '../../errors.ts';
import type { OperationRequest } from '../../handler.ts';
import { isBlank, parseBody, parseQuery } from './requestBody.ts';
import { jsonMayHoldUnstorable, unstorableText } from './storableText.ts';

export interface OperationValidators {
  params: { path?: Validator; query?: Validator; headers?: Validator };
  body?: Validator;
}

export function validatorsOf(doc: ApiDocument, operation: OperationSpec): OperationValidators {
  return {
    params: {
      path: operation.params.path && doc.params[operation.params.path.validator],
      query: operation.params.query && doc.params[operation.params.query.validator],
      headers: operation.params.headers && doc.params[operation.params.headers.validator],
    },
    body: operation.body && doc.body[operation.body.validator],
  };
}

export function validateRequest(
  operation: OperationSpec,
  validators: OperationValidators,
  req: IncomingMessage,
  parts: { pathParams: Record<string, string>; search: string; raw: string | undefined; maxDepth?: number },
): { request: OperationRequest } | { issues: ValidationErrorItem[] } {
  const { params } = validators;
  const issues: ValidationErrorItem[] = [];
  const path = { ...parts.pathParams };
  if (params.path && !params.path(path)) issues.push(...toValidationItems('path', params.path.errors ?? []));
  const pathText = unstorableText(path, ['path']);
  if (pathText) issues.push(pathText);
  const query = parseQuery(parts.search);
  if (params.query && !params.query(query)) issues.push(...toValidationItems('query', params.query.errors ?? []));
  const queryText = parts.search ? unstorableText(query, ['query']) : undefined;
  if (queryText) issues.push(queryText);
  const headers: Record<string, string> = {};
  for (const name of operation.params.headerNames) {
    const v = req.headers[name];
    if (v !== undefined) headers[name] = Array.isArray(v) ? v[0] : v;
  }
  if (params.headers && !params.headers(headers)) issues.push(...toValidationItems('header', params.headers.errors ?? []));
  let body: unknown = undefined;
  if (operation.body?.raw) {
    body = { text: parts.raw ?? '', contentType: req.headers['content-type'] };
  } else if (operation.body?.form) {
    // a form's fields (the pipeline let only a form's media type through)
    body = isBlank(parts.raw) ? undefined : parseQuery(parts.raw!);
    if (body === undefined && operation.body.required) issues.push({ loc: ['body'], msg: 'Field required', type: 'missing' });
    else if (body !== undefined && validators.body && !validators.body(body)) issues.push(...toValidationItems('body', validators.body.errors ?? []));
    const bodyText = body === undefined ? undefined : unstorableText(body, ['body']);
    if (bodyText) issues.push(bodyText);
  } else if (operation.body) {
    const parsed = parseBody(parts.raw, operation.body.required, parts.maxDepth);
    if ('issue' in parsed) issues.push(parsed.issue);
    else {
      body = parsed.value;
      if (body !== undefined && validators.body && !validators.body(body)) issues.push(...toValidationItems('body', validators.body.errors ?? []));
      const bodyText = parts.raw !== undefined && jsonMayHoldUnstorable(parts.raw) ? unstorableText(body, ['body']) : undefined;
      if (bodyText) issues.push(bodyText);
    }
  }
  return issues.length > 0 ? { issues } : { request: { path, query, headers, body } };
}
