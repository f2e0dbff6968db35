import {
  discardDeadLetter,
  isDeadLetterId,
  listDeadLetterDiscards,
  listDeadLetters,
  replayDeadLetter,
  replayDeadLettersOfType,
  summarizeDeadLetters,
  type Bus,
  type RawSql,
} from '@pasar/bus';
import { deadLetterDiscardsQuery, deadLetterKindSchema, deadLettersQuery, discardDeadLetterBody, replayDeadLettersBody } from '@pasar/contracts';
import type { Router } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { requireRole } from './auth';
import { notFound } from './problems';
import { parse } from './validate';

export interface DeadLetterRouteDeps {
  service: string;
  db: RawSql;
  bus: Bus;
  log: Logger;
}

const messageParams = z.object({ kind: deadLetterKindSchema, id: z.string().max(40) });

/**
 * The operators' dead-letter endpoints every service mounts (startService), administrators only,
 * under /admin/dead-letters/<service> (the gateway routes each service's prefix to it):
 *   GET  /                               the groups (kind, type, consumer, count, first/last seen, newest error)
 *   GET  /messages?kind&type&limit&offset one by one, newest first
 *   POST /messages/{kind}/{id}/replay    replay one
 *   POST /replay {kind, type, consumer?} replay every one of a type
 *   POST /messages/{kind}/{id}/discard {reason}  discard one; an audit row keeps it
 *   GET  /discards?limit&offset          the audit rows
 */
export function deadLetterRoutes(router: Router, deps: DeadLetterRouteDeps): void {
  const base = `/admin/dead-letters/${deps.service}`;
  const { db, bus } = deps;

  router.get(base, async (req, res) => {
    requireRole(req, 'admin');
    const groups = await summarizeDeadLetters(db, bus.naming);
    res.json({ service: deps.service, total: groups.reduce((sum, group) => sum + group.count, 0), groups });
  });

  router.get(`${base}/messages`, async (req, res) => {
    requireRole(req, 'admin');
    res.json(await listDeadLetters(db, bus.naming, parse(deadLettersQuery, req.query)));
  });

  router.get(`${base}/discards`, async (req, res) => {
    requireRole(req, 'admin');
    res.json(await listDeadLetterDiscards(db, parse(deadLetterDiscardsQuery, req.query)));
  });

  router.post(`${base}/messages/:kind/:id/replay`, async (req, res) => {
    const admin = requireRole(req, 'admin');
    const { kind, id } = parse(messageParams, req.params);
    if (!isDeadLetterId(kind, id) || !(await replayDeadLetter(db, bus, kind, id))) throw notFound('dead letter');
    req.log.info({ kind, id, by: admin.userId }, 'dead letter replayed');
    res.json({ replayed: 1 });
  });

  router.post(`${base}/replay`, async (req, res) => {
    const admin = requireRole(req, 'admin');
    const selection = parse(replayDeadLettersBody, req.body);
    const replayed = await replayDeadLettersOfType(db, bus, selection);
    req.log.info({ ...selection, replayed, by: admin.userId }, 'dead letters replayed');
    res.json({ replayed });
  });

  router.post(`${base}/messages/:kind/:id/discard`, async (req, res) => {
    const admin = requireRole(req, 'admin');
    const { kind, id } = parse(messageParams, req.params);
    const { reason } = parse(discardDeadLetterBody, req.body);
    const discarded = isDeadLetterId(kind, id) ? await discardDeadLetter(db, bus.naming, { kind, id, reason, by: admin.userId }) : null;
    if (!discarded) throw notFound('dead letter');
    req.log.info({ kind, id, by: admin.userId }, 'dead letter discarded');
    res.status(201).json(discarded);
  });
}
