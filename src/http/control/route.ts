import type { TSchema } from '@sinclair/typebox';
import type { Request } from 'express';

/** What a control route answers: a JSON body, or one with a status other than 200, headers, or text. */
export type Answer = unknown | { status: number; headers?: Record<string, string>; body?: unknown; text?: string; answer: true };

/** What the control API's OpenAPI document says of a route: its summary, and the schemas of its body and query (those the Admin parses with). */
export interface RouteDoc {
  summary: string;
  body?: TSchema;
  query?: TSchema;
  /** The status of a success other than 200. */
  status?: number;
}

/** One control route: where, what it is, and what it does (through the Admin). */
export type Route = [method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, doc: RouteDoc, handle: (req: Request) => Answer | Promise<Answer>];
