/**
 * The identifiers of cmi5 and of the verbs its statements use (docs/test-bench-rules.md): written
 * once, read by the LMS side (cmi5-lms.ts), moveOn (move-on.ts) and the checker (attempt-rules.ts).
 */
const ADL_VERB = 'http://adlnet.gov/expapi/verbs/';
const CMI5 = 'https://w3id.org/xapi/cmi5/';

export const VERB = {
  launched: `${ADL_VERB}launched`,
  initialized: `${ADL_VERB}initialized`,
  completed: `${ADL_VERB}completed`,
  passed: `${ADL_VERB}passed`,
  failed: `${ADL_VERB}failed`,
  terminated: `${ADL_VERB}terminated`,
  exited: `${ADL_VERB}exited`,
  suspended: `${ADL_VERB}suspended`,
  voided: `${ADL_VERB}voided`,
  abandoned: 'https://w3id.org/xapi/adl/verbs/abandoned',
  waived: 'https://w3id.org/xapi/adl/verbs/waived',
  satisfied: 'https://w3id.org/xapi/adl/verbs/satisfied',
} as const;

/** The verbs only the LMS records (the AU never sends them). */
export const LMS_VERBS: ReadonlySet<string> = new Set([VERB.launched, VERB.satisfied, VERB.abandoned, VERB.waived]);

export const CMI5_ID = {
  categoryCmi5: `${CMI5}context/categories/cmi5`,
  categoryMoveOn: `${CMI5}context/categories/moveon`,
  sessionId: `${CMI5}context/extensions/sessionid`,
  launchMode: `${CMI5}context/extensions/launchmode`,
  launchUrl: `${CMI5}context/extensions/launchurl`,
  moveOn: `${CMI5}context/extensions/moveon`,
  masteryScore: `${CMI5}context/extensions/masteryscore`,
  launchParameters: `${CMI5}context/extensions/launchparameters`,
  progress: `${CMI5}result/extensions/progress`,
  reason: `${CMI5}result/extensions/reason`,
  blockType: `${CMI5}activitytype/block`,
  courseType: `${CMI5}activitytype/course`,
  launchDataStateId: 'LMS.LaunchData',
  learnerPreferencesProfileId: 'cmi5LearnerPreferences',
} as const;

/** Why an administrator waives an AU: the reasons cmi5 names for the waived statement's result. */
export const WAIVER_REASONS = ['Tested Out', 'Equivalent AU', 'Equivalent Outside Activity', 'Administrative'] as const;
export type WaiverReason = (typeof WAIVER_REASONS)[number];
