/**
 * A decider (Emmett / Jérémie Chassaing): pure functions, no I/O, no clock. Time and ids
 * come in with the command.
 */
export interface Decider<State, Command, Event> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState(): State;
}

export const assertNever = (value: never): never => {
  throw new Error(`Unexpected value ${JSON.stringify(value)}`);
};
