/**
 * Sends a JSON body with its ETag. xAPI 1.0.3 Part Three §3.1.s4.b1/b2/b4: "An LRS responding to
 * a GET request MUST add an ETag HTTP header to the response", the hexadecimal SHA-1 of the
 * contents, in quotes. The Agents and Activities Resources "have Concurrency controls" (§2.4,
 * §2.5), so their answers carry one too.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

export function sendJsonWithEtag(reply: FastifyReply, value: unknown): FastifyReply {
  const body = JSON.stringify(value);
  const etag = createHash('sha1').update(body).digest('hex');
  return reply.code(200).header('ETag', `"${etag}"`).type('application/json; charset=utf-8').send(body);
}
