import { isServiceCaller, type Caller } from './caller';

/**
 * Whether the caller may see an object: the owner may, a module calling on its own
 * behalf (a service caller) may, and an account token limited to one repository may only see
 * objects of that repository (`repositoryId` of the object; '' when it spans several).
 * Everything else is answered as if it did not exist (404, never 403).
 */
export function callerMaySee(caller: Caller, object: { ownerId: string; repositoryId?: string }): boolean {
  if (isServiceCaller(caller)) return true;
  if (!caller.userId || caller.userId !== object.ownerId) return false;
  return !caller.repositoryId || caller.repositoryId === object.repositoryId;
}
