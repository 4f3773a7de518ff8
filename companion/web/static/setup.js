// Match set-up (referee): players in seating order, edition, colours, goal.
(function () {
  const form = document.getElementById("new-match");
  if (!form) return;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  // the first dealer (R2.3) is chosen among the names typed so far
  const dealer = form.dealer;
  const listDealers = () => {
    const keep = dealer.value;
    const names = [...form.querySelectorAll("input[name=player]")].map((i) => i.value.trim()).filter(Boolean);
    [...dealer.options].slice(1).forEach((o) => o.remove());
    names.forEach((n) => dealer.add(new Option(n, n, false, n === keep)));
  };
  form.addEventListener("input", (ev) => { if (ev.target.name === "player") listDealers(); });
  // names already there when this script runs (typed while the page loaded, or restored by the
  // browser on going back) never fire "input": list them now
  listDealers();
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const players = [...form.querySelectorAll("input[name=player]")].map((i) => i.value.trim()).filter(Boolean);
    const picked = [...form.querySelectorAll("input[name=colour]:checked")].map((i) => i.value);
    const body = { players, edition: form.edition.value, goal: form.goal.value || null,
      colours: picked.length > 1 ? picked : null, dealer: dealer.value || null, camera: form.camera.checked };
    const res = await fetch("/api/matches", { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify(body) });
    const data = await res.json();
    if (res.ok) location.href = "/matches/" + data.id;
    else document.getElementById("new-match-error").textContent = data.message;
  });
})();
