"""The round's procedure: each action's handler checks the move against the rules (raising
:class:`Refusal` before anything changes), applies it to the round data, tells the dealer what
comes next and returns the state the procedure goes to; the machine then takes the declared
transition to it (:mod:`controller.round.controller`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from controller.game.hands import HandEnd, dealer_must_draw, hand_value, is_natural
from controller.game.holds import KIND_CAUSES, HoldCause, HoldKind, HoldReason
from controller.game.prompts import Prompt, PromptCode, Say
from controller.game.refusals import Why, WhyNot
from controller.game.settlement import (
    EntryKind,
    LedgerEntry,
    Wager,
    is_super_bonus_hand,
    net_by_player,
    settle_bust,
    settle_dealer_natural,
    settle_insurance,
    settle_natural,
    settle_showdown,
    settle_super_bonus,
    settle_surrender,
    settle_twenty_one,
    stakes_at_21,
    surrender_waits_for_dealer,
)
from controller.game.words import count_words, deck_words, on_the_bar
from controller.round.errors import Refusal
from controller.round.inputs import (
    AssignCard,
    Bet,
    BurnCard,
    ClearLockup,
    ConfirmCard,
    Deal,
    Double,
    DrawnCard,
    Hit,
    Hold,
    KeyedCard,
    Ok,
    ReaderAnswer,
    Resume,
    Shuffle,
    Split,
    Stand,
    Void,
)
from controller.round.memento import RoundData
from controller.round.model import (
    BoxState,
    DealTarget,
    HandState,
    RoundState,
    StakeState,
    deal_plan,
    end_of_hand,
    in_variant_shoe,
    insurance_offered,
    surrender_offered,
    why_not_double,
    why_not_hit,
    why_not_split,
    why_not_stand,
)
from controller.round.outputs import DeviceCommand, Output
from controller.round.spec import S, State
from drivers.tbl21.cards import Card

# The ends of a hand that a 21 is paid at (where 21s are paid at once), and those with a bust.
_21 = frozenset({HandEnd.TWENTY_ONE, HandEnd.NATURAL})
_BUST_OR_21 = _21 | {HandEnd.BUST}


class Procedure(RoundData):
    """The handlers of the round's actions and the procedure they follow."""

    def dealer_visible_cards(self) -> list[Card]:
        return [c for i, c in enumerate(self.round.dealer.cards) if self._dealer_card_shows(i)]

    @property
    def hold_reasons(self) -> list[HoldReason]:
        return list(self.table.holds)

    def _emit(self, item: Output) -> None:
        self.outbox.append(item)

    def _prompt(self, code: PromptCode, say: Say, **kw: Any) -> None:
        if self.prompts:
            prompt = Prompt(code, say, **kw)
            if on_the_bar(prompt):
                self.told = prompt
            self._emit(prompt)

    def _stop(self, code: PromptCode, say: Say, hold: HoldReason) -> None:
        """Hold for ``hold``, and tell the dealer (the prompt keeps the hold as it is now)."""
        self.table.holds.append(hold)
        self._prompt(code, say, hold=replace(hold))

    def _shuffle(self, move: Shuffle) -> State:
        if self.round.boxes:
            raise Refusal(WhyNot(Why.BETS_ON_TABLE))
        self.table.shuffle_due = False
        self.table.burn_left = self.rules.shoe.burn_cards
        self.table.shoe_number += 1
        return S.BURN if self.table.burn_left else S.BETTING

    def _bet(self, move: Bet) -> State:
        box_no, player, amount = move.box, move.player, move.amount_cents
        if not 1 <= box_no <= self.rules.table.boxes:
            raise Refusal(WhyNot(Why.BOX_OUT_OF_RANGE, box=box_no, number=self.rules.table.boxes))
        if not player:
            raise Refusal(WhyNot(Why.BET_NEEDS_PLAYER))
        if amount <= 0:
            raise Refusal(WhyNot(Why.BET_NOT_POSITIVE, cents=amount))
        increment = self.rules.table.min_increment_cents
        if amount % increment:
            raise Refusal(WhyNot(Why.BET_INCREMENT, cents=increment))
        box = self.round.boxes.get(box_no)
        if box is not None and box.wager_of(player) is not None:
            raise Refusal(WhyNot(Why.ALREADY_WAGERED, player=player, box=box_no))
        if box is not None and len(box.wagers) >= self.rules.table.wagers_per_box:
            most = self.rules.table.wagers_per_box
            raise Refusal(WhyNot(Why.BOX_FULL, box=box_no, number=most, game=self.rules.id))
        self._push_undo()
        if box is None:
            box = BoxState(box_no, [])
            self.round.boxes[box_no] = box
        box.wagers.append(Wager(player, amount))
        return S.BETTING

    def _deal(self, move: Deal) -> State:
        if not self.round.boxes:
            raise Refusal(WhyNot(Why.NO_BETS))
        self._undo.clear()
        for box in self.round.boxes.values():
            box.hands = [HandState([], [StakeState(w.player, w.amount_cents) for w in box.wagers])]
        self.round.deal_plan = deal_plan(self.rules, self.round.box_numbers())
        self._prompt_next_deal()
        return S.DEALING

    def _prompt_next_deal(self) -> None:
        target, n = self.round.deal_plan[0]
        if target is DealTarget.BOX:
            self._prompt(PromptCode.DEAL, Say.DEAL_TO_BOX, box=n)
        else:
            down = n == 2 or not self.rules.dealer.first_card_face_up
            self._prompt(PromptCode.DEAL, Say.DEALER_CARD, count=n, face_down=down)

    def _card(self, move: DrawnCard) -> State:
        if move.kept_out is not None:
            self._undo.clear()
            return self._kept_out_card(
                move.card,
                move.kept_out,
                self.state,
                HoldCause.OVER_COUNT,
                count_words(self.rules.shoe.decks),
            )
        return self._apply_card(move.card, self.state)

    def _apply_card(self, card: Card, state: State) -> State:
        self._undo.clear()
        if not in_variant_shoe(self.rules, card):
            return self._foreign_card(card, state)
        if state is S.BURN:
            self.table.cards_burned += 1
            self.table.burn_left -= 1
            return S.BURN if self.table.burn_left > 0 else S.BETTING
        if state is S.DEALING:
            return self._deal_card(card)
        if state is S.CARD_DUE:
            return self._player_card(card)
        if state is S.DEALER:
            return self._dealer_card(card)
        # Nobody asked for this card: hold and let the dealer and a supervisor decide.
        if state is not S.HOLD:
            self.table.resume_state = state
        hold = HoldReason(
            HoldKind.UNEXPECTED_CARD,
            f"card {card} drawn when no card was due",
            card,
            cause=HoldCause.CARD_OUT_OF_TURN,
        )
        self._stop(PromptCode.HOLD, Say.OUT_OF_TURN, hold)
        return S.HOLD

    def _foreign_card(self, card: Card, state: State) -> State:
        """A card that cannot be in the variant's shoe (a ten from a Spanish 48-card shoe): an
        irregularity. It is never dealt or settled; a supervisor burns it or voids the round."""
        deck = deck_words(self.rules)
        return self._kept_out_card(
            card, f"cannot be in this game's shoe ({deck})", state, HoldCause.FOREIGN_CARD, deck
        )

    def _kept_out_card(
        self, card: Card, why: str, state: State, cause: HoldCause, about: str
    ) -> State:
        """A card the round never takes (foreign to the shoe, or one more than its decks hold):
        it waits, kept out, until a supervisor burns it or voids the round."""
        if state is not S.HOLD:
            self.table.resume_state = state
        hold = HoldReason(
            HoldKind.UNEXPECTED_CARD,
            f"card {card} {why}",
            card,
            kept_out=True,
            cause=cause,
            about=about,
        )
        self._stop(PromptCode.HOLD, Say.KEPT_OUT, hold)
        return S.HOLD

    def _deal_card(self, card: Card) -> State:
        target, n = self.round.deal_plan.pop(0)
        if target is DealTarget.BOX:
            self.round.boxes[n].hands[0].cards.append(card)
        else:
            self.round.dealer.cards.append(card)
        if self.round.deal_plan:
            self._prompt_next_deal()
            return S.DEALING
        return self._after_deal()

    def _after_deal(self) -> State:
        rules = self.rules
        if rules.payouts.natural_paid_at_once:
            for box in self._boxes():
                hand = box.hands[0]
                if is_natural(rules, hand.cards, False):
                    self._settle(settle_natural(rules, box.frozen(), 0))
                    hand.finished = hand.settled = True
                    hand.end = HandEnd.NATURAL
                    box.natural_paid = True
        first = self.round.dealer.first
        if not rules.has_hole_card:
            eligible = [b for b in self._boxes() if not b.natural_paid]
            ins = insurance_offered(rules, first) and eligible
            sur = surrender_offered(rules, first) and eligible
            up = () if first is None else (first,)
            offers = tuple(o for o, open_ in (("insurance", ins), ("surrender", sur)) if open_)
            if ins:
                self._prompt(
                    PromptCode.OFFER_INSURANCE, Say.INSURANCE_FIRST, cards=up, options=offers
                )
            if sur:
                self._prompt(
                    PromptCode.OFFER_SURRENDER, Say.SURRENDER_AGAINST, cards=up, options=offers
                )
            if ins or sur:
                return S.OFFERS
            return self._start_play()
        if insurance_offered(rules, first):
            self._prompt(
                PromptCode.OFFER_INSURANCE,
                Say.INSURANCE_UP,
                cards=() if first is None else (first,),
                options=("insurance",),
            )
            return S.INSURANCE
        return self._after_insurance()

    def _after_insurance(self) -> State:
        if self.rules.surrender.allowed and surrender_offered(self.rules, self.round.dealer.first):
            first = self.round.dealer.first
            self._prompt(
                PromptCode.OFFER_SURRENDER,
                Say.SURRENDER_NOW,
                cards=() if first is None else (first,),
                options=("surrender",),
            )
            return S.SURRENDER
        return self._after_surrender()

    def _after_surrender(self) -> State:
        first = self.round.dealer.first
        if first is not None and first.rank in self.rules.dealer.peek_up_cards:
            arm = "A" if first.is_ace else "T"
            self._emit(DeviceCommand("peek", "arm_peek", (arm,)))
            self._prompt(PromptCode.PEEK, Say.PEEK)
            return S.PEEK
        # The dealer cannot have a natural: everything waiting on it settles now.
        self._dealer_natural_known(False)
        return self._start_play()

    def _player_card(self, card: Card) -> State:
        assert self.round.card_for is not None
        box_no, index = self.round.card_for
        self.round.card_for = None
        box = self.round.boxes[box_no]
        hand = box.hands[index]
        hand.cards.append(card)
        end = end_of_hand(self.rules, hand)
        if end not in _BUST_OR_21:
            self._pay_co_bettors_at_21(box, index)
        if end is None:
            self.round.turn = (box_no, index)
            return S.PLAYING
        hand.finished = True
        hand.end = end
        if end is HandEnd.BUST:
            self._settle(settle_bust(self.rules, box.frozen(), index))
            hand.settled = True
        elif end in _21 and self._pays_21_at_once(hand):
            self._settle(settle_twenty_one(self.rules, box.frozen(), index))
            hand.settled = True
        elif end is HandEnd.ONE_AFTER_DOUBLE and self.rules.double.rescue:
            self.round.turn = (box_no, index)
            self._prompt(PromptCode.OFFER_RESCUE, Say.RESCUE, box=box_no, hand=index + 1)
            return S.RESCUE
        return self._next_hand(box_no, index)

    def _pay_co_bettors_at_21(self, box: BoxState, index: int) -> None:
        """NZ 12.2 binds the player who doubles: a co-bettor who did not join values the
        initial aces normally, and his 21 is paid at once (9.2) while the doubler's lower total
        plays on (the controller joins every double, so the hand stays live)."""
        hand = box.hands[index]
        if not hand.doubles or not self._pays_21_at_once(hand):
            return
        players = stakes_at_21(self.rules, hand.frozen())
        if not players:
            return
        self._settle(settle_twenty_one(self.rules, box.frozen(), index))
        for stake in hand.stakes:
            if stake.player in players:
                stake.settled = True

    def _pays_21_at_once(self, hand: HandState) -> bool:
        return self.rules.payouts.twenty_one_paid_at_once and not is_super_bonus_hand(
            self.rules, hand.frozen(), self.round.dealer.first
        )

    def _boxes(self) -> list[BoxState]:
        return [self.round.boxes[n] for n in self.round.box_numbers()]

    def _start_play(self) -> State:
        return self._find_turn(0, 0)

    def _next_hand(self, box_no: int, index: int) -> State:
        return self._find_turn(box_no, index + 1)

    def _find_turn(self, box_no: int, index: int) -> State:
        """The next hand that needs the dealer: its second card (split) or a decision."""
        for box in self._boxes():
            if box.number < box_no or box.surrendered:
                continue
            start = index if box.number == box_no else 0
            for i in range(start, len(box.hands)):
                hand = box.hands[i]
                if hand.finished:
                    continue
                if len(hand.cards) < 2:
                    return self._card_due(box.number, i, Say.NEXT_HAND)
                end = end_of_hand(self.rules, hand)
                if end is not None:  # e.g. a split hand dealt 21
                    self.round.card_for = None
                    hand.finished = True
                    hand.end = end
                    if end in _21 and self._pays_21_at_once(hand):
                        self._settle(settle_twenty_one(self.rules, box.frozen(), i))
                        hand.settled = True
                    continue
                self.round.turn = (box.number, i)
                return S.PLAYING
        self.round.turn = None
        return self._dealer_phase()

    def _unsettled(self) -> bool:
        """Something still depends on the dealer's cards. A surrender that only waits for the
        completion of the dealer's hand (NZ 9.5, no dealer pontoon) does not make the dealer
        draw: it settles when the dealer's hand is complete."""
        for box in self._boxes():
            if box.insurance and not box.insurance_settled:
                return True
            if (
                box.surrendered
                and not box.surrender_settled
                and (self.round.dealer_natural is None or not self._surrender_waits())
            ):
                return True
            if not box.surrendered and self.round.open_hands(box):
                return True
        return False

    def _surrender_waits(self) -> bool:
        return surrender_waits_for_dealer(self.rules)

    def _settle_surrender(self, box: BoxState, natural: bool) -> None:
        self._settle(settle_surrender(self.rules, box.frozen(), natural))
        box.surrender_settled = True
        for hand in box.hands:
            hand.finished = hand.settled = True

    def _dealer_hand_complete(self) -> None:
        """The surrenders that waited for the end of the dealer's hand (NZ 9.5) settle now."""
        for box in self._boxes():
            if box.surrendered and not box.surrender_settled:
                self._settle_surrender(box, False)

    def _dealer_phase(self) -> State:
        if not self.rules.has_hole_card:
            if not self._unsettled():
                return self._finish()
            self._prompt(PromptCode.DEAL, Say.DEALER_SECOND)
            return S.DEALER
        if not self.round.dealer.hole_revealed:
            self._prompt(PromptCode.REVEAL, Say.TURN_OVER)
            return S.REVEAL
        return self._dealer_draws_or_finish()

    def _dealer_card(self, card: Card) -> State:
        dealer = self.round.dealer
        dealer.cards.append(card)
        if not self.rules.has_hole_card and len(dealer.cards) == 2:
            natural = is_natural(self.rules, dealer.cards, False)
            self._dealer_natural_known(natural)
            if natural:
                self._prompt(PromptCode.DEALER_NATURAL, Say.PONTOON)
                for box in self._boxes():
                    self._settle_against_natural(box)
                return self._finish()
        return self._dealer_draws_or_finish()

    def _dealer_draws_or_finish(self) -> State:
        cards = self.round.dealer.cards
        value = hand_value(cards)
        if not self._unsettled():
            self._dealer_hand_complete()
            return self._finish()
        if dealer_must_draw(self.rules, cards):
            self._prompt(PromptCode.DEALER_DRAWS, Say.DRAWS, cards=tuple(cards))
            return S.DEALER
        if value.bust:
            self._prompt(PromptCode.DEALER_BUST, Say.BUSTS, cards=tuple(cards))
        else:
            self._prompt(PromptCode.DEALER_STANDS, Say.STANDS, cards=tuple(cards))
        for box in self._boxes():
            if box.surrendered:
                if not box.surrender_settled:  # NZ 9.5, box by box with the showdowns
                    self._settle_surrender(box, False)
                continue
            for i in self.round.open_hands(box):
                self._settle(settle_showdown(self.rules, box.frozen(), i, cards))
                box.hands[i].settled = True
        return self._finish()

    def _finish(self) -> State:
        entries = settle_super_bonus(
            self.rules, [b.frozen() for b in self._boxes()], self.round.dealer.first
        )
        self._settle(entries)
        net = net_by_player(self.round.ledger)
        self._prompt(
            PromptCode.ROUND_OVER, Say.ROUND_OVER, count=self.round.number, net=tuple(net.items())
        )
        return S.SETTLING

    def _dealer_natural_known(self, natural: bool) -> None:
        self.round.dealer_natural = natural
        for box in self._boxes():
            if box.insurance and not box.insurance_settled:
                self._settle(settle_insurance(self.rules, box.frozen(), natural))
                box.insurance_settled = True
            waits = not natural and self._surrender_waits()  # 9.4 at once; 9.5 waits
            if box.surrendered and not box.surrender_settled and not waits:
                self._settle_surrender(box, natural)

    def _settle_against_natural(self, box: BoxState) -> None:
        if box.surrendered:
            return
        open_hands = self.round.open_hands(box)
        if not open_hands:
            return
        lost: dict[str, int] = {}
        for e in self.round.ledger:
            if e.box == box.number and e.hand is not None and e.amount_cents < 0:
                lost[e.player] = lost.get(e.player, 0) - e.amount_cents
        self._settle(settle_dealer_natural(self.rules, box.frozen(), open_hands, lost))
        for i in open_hands:
            box.hands[i].finished = box.hands[i].settled = True

    def _settle(self, entries: list[LedgerEntry]) -> None:
        for e in entries:
            self.round.ledger.append(e)
            self._emit(e)
            self._prompt(
                _money_code(e),
                Say.MONEY,
                detail=e.reason,
                box=e.box,
                hand=e.hand,
                player=e.player,
                amount_cents=abs(e.amount_cents)
                if e.kind is not EntryKind.RETURN
                else e.stake_cents,
                odds=e.odds,
            )
        if entries:
            self._undo.clear()

    def _ok(self, move: Ok) -> State:
        state = self.state
        self._undo.clear()
        if state is S.OFFERS:
            return self._start_play()
        if state is S.INSURANCE:
            return self._after_insurance()
        if state is S.SURRENDER:
            return self._after_surrender()
        if state is S.RESCUE:
            assert self.round.turn is not None
            return self._next_hand(*self.round.turn)
        if state is S.REVEAL:
            return self._reveal()
        if state is S.SETTLING:
            return self._next_round()
        raise Refusal(WhyNot(Why.NOTHING_TO_ACKNOWLEDGE, state=state.value))  # pragma: no cover

    def _reveal(self) -> State:
        dealer = self.round.dealer
        dealer.hole_revealed = True
        natural = is_natural(self.rules, dealer.cards[:2], False)
        self._prompt(PromptCode.REVEAL, Say.SHOWS, cards=tuple(dealer.cards))
        if self.round.peek_result is not None and (self.round.peek_result == "Y") != natural:
            self.table.resume_state = S.REVEAL
            hold = HoldReason(
                HoldKind.LOCKUP,
                f"PEEK_MISMATCH (0xA1): reader said "
                f"{self.round.peek_result}, the hole card makes "
                f"{'a natural' if natural else 'no natural'}",
                cause=HoldCause.PEEK_MISMATCH,
            )
            self._stop(PromptCode.LOCKUP, Say.PEEK_MISMATCH, hold)
            return S.HOLD
        return self._after_reveal()

    def _after_reveal(self) -> State:
        natural = is_natural(self.rules, self.round.dealer.cards[:2], False)
        if self.round.dealer_natural is None:
            self._dealer_natural_known(natural)
        if natural:
            self._prompt(PromptCode.DEALER_NATURAL, Say.NATURAL)
            for box in self._boxes():
                self._settle_against_natural(box)
            return self._finish()
        return self._dealer_draws_or_finish()

    def _peek(self, move: ReaderAnswer) -> State:
        outcome = move.outcome.value
        if outcome in ("U", "E"):
            self._prompt(PromptCode.PEEK, Say.PEEK_UNREAD if outcome == "U" else Say.PEEK_EMPTY)
            return S.PEEK
        self._undo.clear()
        self.round.peek_result = outcome
        natural = outcome == "Y"
        self._dealer_natural_known(natural)
        if natural:
            self._prompt(PromptCode.REVEAL, Say.NATURAL_TURN_OVER)
            return S.REVEAL
        return self._start_play()

    def _turn_hand(self, asked: int | None) -> tuple[BoxState, HandState, int]:
        if self.round.turn is None:
            raise Refusal(WhyNot(Why.NO_HAND_IN_PLAY))
        box_no, index = self.round.turn
        if asked is not None and asked != box_no:
            raise Refusal(WhyNot(Why.NOT_IN_PLAY, box=asked, in_play=box_no, hand=index + 1))
        box = self.round.boxes[box_no]
        return box, box.hands[index], index

    def _hit(self, move: Hit) -> State:
        box, hand, index = self._turn_hand(move.box)
        reason = why_not_hit(self.rules, hand)
        if reason:
            raise Refusal(reason)
        self._push_undo()
        return self._card_due(box.number, index, Say.HIT)

    def _card_due(self, box_no: int, index: int, say: Say) -> State:
        """A card is owed to a player hand: tell the dealer where it goes."""
        self.round.card_for = (box_no, index)
        hands = len(self.round.boxes[box_no].hands)
        self._prompt(PromptCode.DEAL, say, box=box_no, hand=index + 1, count=hands)
        return S.CARD_DUE

    def _stand(self, move: Stand) -> State:
        box, hand, index = self._turn_hand(move.box)
        reason = why_not_stand(self.rules, hand)
        if reason:
            raise Refusal(reason)
        self._undo.clear()
        hand.finished = True
        hand.end = HandEnd.STAND
        return self._next_hand(box.number, index)

    def _double(self, move: Double) -> State:
        box, hand, index = self._turn_hand(move.box)
        players = move.players
        joining = [s.player for s in hand.stakes] if players is None else list(players)
        amount_cents = move.amount_cents
        reason = why_not_double(self.rules, box, hand, amount_cents, joining)
        if reason:
            raise Refusal(reason)
        self._push_undo()
        for stake in hand.stakes:
            if stake.player in joining:
                stake.double_cents += stake.base_cents if amount_cents is None else amount_cents
        hand.doubles += 1
        hand.cards_at_double = len(hand.cards)
        return self._card_due(box.number, index, Say.DOUBLED)

    def _split(self, move: Split) -> State:
        box, hand, index = self._turn_hand(move.box)
        reason = why_not_split(self.rules, box, hand)
        if reason:
            raise Refusal(reason)
        self._push_undo()
        aces = hand.cards[0].is_ace
        second = HandState(
            [hand.cards.pop()],
            [StakeState(s.player, s.base_cents) for s in hand.stakes],
            from_split=True,
            split_aces=aces,
        )
        hand.from_split = True
        hand.split_aces = aces
        box.hands.insert(index + 1, second)
        return self._card_due(box.number, index, Say.SPLIT)

    def _hold(self, move: Hold) -> State:
        kind, detail = move.kind, move.detail
        if kind is HoldKind.UNEXPECTED_CARD:
            raise Refusal(WhyNot(Why.HOLD_FROM_CARD, kind=kind))
        if self.state is not S.HOLD:
            self.table.resume_state = self.state
        cause = move.cause or KIND_CAUSES[kind]
        hold = HoldReason(
            kind,
            detail,
            move.card,
            move.device,
            cause=cause,
            fault=move.fault,
            about=move.about or "",
        )
        self._stop(
            PromptCode.HOLD if kind is not HoldKind.LOCKUP else PromptCode.LOCKUP, Say.HOLD, hold
        )
        return S.HOLD

    def _resume(self, move: Resume) -> State:
        kind, device = move.kind, move.device
        matching = [
            h for h in self.table.holds if h.kind is kind and (device is None or h.device == device)
        ]
        if not matching:
            raise Refusal(WhyNot(Why.NO_HOLD_TO_CLEAR, kind=kind))
        if kind in (HoldKind.UNEXPECTED_CARD, HoldKind.LOCKUP, HoldKind.UNREADABLE_CARD):
            raise Refusal(WhyNot(Why.HOLD_NEEDS_SUPERVISOR, kind=kind))
        for h in matching:
            self.table.holds.remove(h)
        if kind is HoldKind.DEVICE_LOST:
            return self._leave_hold_if_clear(Say.DEVICE_BACK, device=device)
        return self._leave_hold_if_clear(Say.REDRAWN)

    def _leave_hold_if_clear(self, cleared: Say, **fields: Any) -> State:
        if self.table.holds:
            return S.HOLD
        target = self.table.resume_state or S.BETTING
        self.table.resume_state = None
        self._prompt(PromptCode.RESUMED, cleared, state=target.value, **fields)
        return target

    def _pending(self, kind: HoldKind) -> HoldReason:
        for h in self.table.holds:
            if h.kind is kind:
                return h
        raise Refusal(WhyNot(Why.NOTHING_WAITING, kind=kind))

    def _assign_card(self, move: AssignCard) -> State:
        hold = self._pending(HoldKind.UNEXPECTED_CARD)
        resume = self.table.resume_state
        # The hand in play, or the hand a card was due to when the table stopped (a hit, a
        # double: the shoe lost its count of the draws just then).
        due = self.round.card_for if resume is S.CARD_DUE else None
        if due is None and (resume is not S.PLAYING or self.round.turn is None):
            raise Refusal(WhyNot(Why.NO_HAND_FOR_CARD))
        assert hold.card is not None
        if hold.kept_out or not in_variant_shoe(self.rules, hold.card):
            raise Refusal(WhyNot(Why.CARD_NOT_IN_SHOE, detail=hold.detail))
        target = due if due is not None else self.round.turn
        assert target is not None
        self.table.holds.remove(hold)
        self.round.card_for = target
        dest = self._player_card(hold.card)
        return self._after_supervisor(dest, Say.ASSIGNED, cards=(hold.card,))

    def _after_supervisor(self, dest: State, cleared: Say, **fields: Any) -> State:
        if dest is S.HOLD:
            # The card stopped the table again (no card was due, or the round cannot take it):
            # that hold has said where the table goes on to, which is not the hold itself.
            return S.HOLD
        if self.table.holds:
            self.table.resume_state = dest
            return S.HOLD
        self.table.resume_state = None
        self._prompt(PromptCode.RESUMED, cleared, state=dest.value, **fields)
        return dest

    def _burn_card(self, move: BurnCard) -> State:
        hold = self._pending(HoldKind.UNEXPECTED_CARD)
        self.table.holds.remove(hold)
        self.table.cards_burned += 1
        return self._leave_hold_if_clear(
            Say.BURNED, cards=() if hold.card is None else (hold.card,)
        )

    def _key_card(self, move: KeyedCard) -> State:
        hold = self._pending(HoldKind.UNREADABLE_CARD)
        hold.card = move.card
        self._prompt(PromptCode.SUPERVISOR, Say.KEYED_WAITS, hold=replace(hold))
        return S.HOLD

    def _confirm_card(self, move: ConfirmCard) -> State:
        hold = self._pending(HoldKind.UNREADABLE_CARD)
        if hold.card is None:
            raise Refusal(WhyNot(Why.NOT_KEYED_YET))
        self.table.holds.remove(hold)
        resume = self.table.resume_state or S.BETTING
        self.table.resume_state = None
        dealer_had = len(self.round.dealer.cards)
        dest = self._apply_card(hold.card, resume)
        if len(self.round.dealer.cards) > dealer_had and not self._dealer_card_shows(dealer_had):
            # The dealer's face-down card: its name waits for the reveal, like any hole card.
            return self._after_supervisor(dest, Say.KEYED_HOLE)
        return self._after_supervisor(dest, Say.KEYED, cards=(hold.card,))

    def _dealer_card_shows(self, index: int) -> bool:
        """Whether the dealer's card at ``index`` is dealt face up (or already turned over)."""
        if not self.rules.has_hole_card or self.round.dealer.hole_revealed or index >= 2:
            return True
        return index == 0 and self.rules.dealer.first_card_face_up

    def _clear_lockup(self, move: ClearLockup) -> State:
        hold = self._pending(HoldKind.LOCKUP)
        self.table.holds.remove(hold)
        if self.table.holds:
            return S.HOLD
        resume = self.table.resume_state
        self.table.resume_state = None
        if resume is S.REVEAL and self.round.dealer.hole_revealed:
            # The turned-over card is the truth. Settlements already made on the reader's answer
            # stand (they are journalled; a supervisor corrects them by hand).
            natural = is_natural(self.rules, self.round.dealer.cards[:2], False)
            if self.round.peek_result == "Y" and not natural:
                # The reader claimed a natural that is not there: the boxes play after all.
                self.round.peek_result = "N"
                self.round.dealer_natural = False
                return self._start_play()
            return self._after_reveal()
        return resume or S.BETTING

    def dealt(self) -> bool:
        """Whether this round's hands are dealt (a void has something to set aside)."""
        return any(box.hands for box in self.round.boxes.values())

    def _void(self, move: Void) -> State:
        if not self.dealt():
            raise Refusal(WhyNot(Why.NOTHING_TO_VOID))
        # A card held as unexpected goes to the discard rack with the round.
        self.table.cards_burned += sum(
            1 for h in self.table.holds if h.card is not None and h.kind is HoldKind.UNEXPECTED_CARD
        )
        self.table.holds.clear()
        self.table.resume_state = None
        self.round.voided = True
        self.round.card_for = None
        for box in self._boxes():
            entries: list[LedgerEntry] = []
            if box.insurance and not box.insurance_settled:
                for player, cents in box.insurance.items():
                    entries.append(_void_entry(box.number, player, None, cents))
                box.insurance_settled = True
            if box.surrendered and not box.surrender_settled:
                for w in box.wagers:
                    entries.append(_void_entry(box.number, w.player, None, w.amount_cents))
                box.surrender_settled = True
            elif not box.surrendered:
                for i in self.round.open_hands(box):
                    for s in box.hands[i].stakes:
                        if s.live:
                            entries.append(
                                _void_entry(
                                    box.number, s.player, i + 1, s.base_cents + s.double_cents
                                )
                            )
                    box.hands[i].finished = box.hands[i].settled = True
            self._settle(entries)
        self._prompt(PromptCode.VOID, Say.VOID, count=self.round.number)
        return S.SETTLING

    def _next_round(self) -> State:
        number = self.round.number + 1
        self.round = RoundState(number=number)
        self.table.round_number = number
        if self.table.shuffle_due:
            return S.SHUFFLE
        return S.BETTING

    def cut_card_seen(self) -> None:
        """The cut card came out: finish this round, shuffle before the next."""
        self.table.shuffle_due = True
        self._prompt(PromptCode.SHUFFLE, Say.CUT_CARD)

    def _box(self, box_no: int | None) -> BoxState:
        if box_no is None:
            raise Refusal(WhyNot(Why.BOX_MISSING))
        box = self.round.boxes.get(box_no)
        if box is None:
            raise Refusal(WhyNot(Why.NO_BET_ON_BOX, box=box_no))
        return box


def _void_entry(box: int, player: str, hand: int | None, cents: int) -> LedgerEntry:
    return LedgerEntry(box, player, hand, EntryKind.RETURN, 0, cents, None, "round void")


def _money_code(e: LedgerEntry) -> PromptCode:
    """What the dealer does with a ledger entry."""
    if e.kind is EntryKind.RETURN:
        return PromptCode.RETURN
    if e.amount_cents > 0:
        return PromptCode.PAY
    return PromptCode.COLLECT if e.amount_cents < 0 else PromptCode.PUSH
