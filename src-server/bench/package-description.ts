/**
 * What the Test Bench knows of an imported package, read from its manifest (`tincan.xml` or
 * `cmi5.xml`, docs/test-bench-rules.md): the schemas are the types, and the admin API's contract
 * answers with them.
 */
import { z } from 'zod';

export const MOVE_ON_VALUES = ['Passed', 'Completed', 'CompletedAndPassed', 'CompletedOrPassed', 'NotApplicable'] as const;
const moveOnSchema = z.enum(MOVE_ON_VALUES);
export type MoveOn = z.infer<typeof moveOnSchema>;

/** One Activity `tincan.xml` lists. */
const tincanActivitySchema = z.object({
  id: z.string(),
  type: z.string().nullable(),
  name: z.string().nullable(),
});

/** An assignable unit of a cmi5 course structure. */
const cmi5AuSchema = z.object({
  kind: z.literal('au'),
  /** The publisher id: the AU's `id` in cmi5.xml. */
  id: z.string(),
  title: z.string(),
  /** Relative to the package root, or absolute; its own query string kept. */
  url: z.string(),
  moveOn: moveOnSchema,
  masteryScore: z.number().min(0).max(1).nullable(),
  launchMethod: z.enum(['AnyWindow', 'OwnWindow']),
  launchParameters: z.string().nullable(),
  entitlementKey: z.string().nullable(),
  activityType: z.string().nullable(),
});
export type Cmi5Au = z.infer<typeof cmi5AuSchema>;

export interface Cmi5Block {
  kind: 'block';
  id: string;
  title: string;
  children: Array<Cmi5Au | Cmi5Block>;
}
const cmi5BlockSchema: z.ZodType<Cmi5Block> = z.lazy(() =>
  z.object({
    kind: z.literal('block'),
    id: z.string(),
    title: z.string(),
    children: z.array(z.union([cmi5AuSchema, cmi5BlockSchema])),
  }),
);

/** A unit the console offers to launch: the AU's publisher id (cmi5), the course (Tin Can). */
export const packageUnitSchema = z.object({ id: z.string(), title: z.string() });
export type PackageUnit = z.infer<typeof packageUnitSchema>;

const tincanDescriptionSchema = z.object({
  kind: z.literal('tincan'),
  title: z.string(),
  /** The folder inside the package that holds the manifest ('' for the root, else ending in '/'). */
  root: z.string(),
  /** The launch file, relative to `root`, its own query string kept. */
  launch: z.string(),
  /** The course Activity: the first `activity` of tincan.xml (the course type when one says so). */
  activityId: z.string(),
  activities: z.array(tincanActivitySchema),
  units: z.array(packageUnitSchema),
});

const cmi5DescriptionSchema = z.object({
  kind: z.literal('cmi5'),
  title: z.string(),
  root: z.string(),
  course: z.object({ id: z.string(), title: z.string(), description: z.string().nullable() }),
  /** The course's top-level AUs and blocks, in order. */
  children: z.array(z.union([cmi5AuSchema, cmi5BlockSchema])),
  units: z.array(packageUnitSchema),
});

export const packageDescriptionSchema = z.discriminatedUnion('kind', [tincanDescriptionSchema, cmi5DescriptionSchema]);
export type PackageDescription = z.infer<typeof packageDescriptionSchema>;
export type TincanDescription = z.infer<typeof tincanDescriptionSchema>;
export type Cmi5Description = z.infer<typeof cmi5DescriptionSchema>;
