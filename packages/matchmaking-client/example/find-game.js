// The example page's script: one list item per ticket, showing its place in the queue, then
// where to play (or why not), with a button to cancel it. Bundled by bundle.mjs.
import { Matchmaker } from '@gamefactory/matchmaking-client/browser';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
$('coordinator').value = params.get('coordinator') ?? 'http://127.0.0.1:8080';

let matchmaker;
let using;

$('find').addEventListener('submit', (event) => {
  event.preventDefault();
  const coordinator = $('coordinator').value;
  if (coordinator !== using) {
    matchmaker = new Matchmaker({ addresses: coordinator });
    using = coordinator;
  }
  const player = $('player').value;
  const ticket = matchmaker.find({ template: $('template').value, party: [player], partition: JSON.parse($('partition').value || '{}') });

  const item = document.createElement('li');
  item.dataset.player = player;
  const state = document.createElement('span');
  state.className = 'state';
  state.textContent = 'finding…';
  const cancel = document.createElement('button');
  cancel.textContent = 'Cancel';
  cancel.addEventListener('click', () => void ticket.cancel());
  item.append(`${player}: `, state, ' ', cancel);
  $('tickets').append(item);

  // Events; `for await (const update of ticket)` reads the same updates.
  ticket.on('queued', (queued) => (state.textContent = `queued: position ${queued.position} in ${queued.factory}`));
  ticket.on('resuming', (resuming) => (state.textContent = `resuming on ${resuming.address}`));
  ticket.on('assignment', (assignment) => {
    state.textContent = `assigned: game ${assignment.gameId} at ${assignment.serverEndpoint}`;
    cancel.remove();
  });
  ticket.on('failed', (error) => {
    state.textContent = `failed: ${error.message}`;
    cancel.remove();
  });
});
