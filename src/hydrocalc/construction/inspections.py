"""Construction inspections and advance notices required by the local laws.

:func:`inspection_schedule` lists every required qualified-professional inspection between
construction start and end from a daily rainfall record: a routine inspection every 7 days
and a storm inspection within 24 hours of each day with 0.5 inch or more (Shelter Island
§ 110-39C for Conditions A/B/C; Pelham ch. 83 maintenance during construction, § 83-14B by
inferred number). :func:`notice_schedule` gives Pelham's 48-hour notices before the milestones
of § 83-15A(1)(a)-(g) (inferred number).

Rules and judgment calls (documented in docs/construction.md)
-------------------------------------------------------------
Storm day
    A calendar day whose rainfall is at least the threshold; exactly 0.5 in counts ("0.5 inch
    of precipitation or more"). Depths are compared with a 1e-9 in tolerance that only
    absorbs unit-conversion round-off.
Within 24 hours
    Daily totals cannot say at what hour the rain fell, so a visit on the storm day itself
    may precede the rain. The storm inspection is therefore due on the **next calendar day**
    (the last day that is certainly within 24 hours of the end of that day's rain). A storm
    on the last day of construction gives a visit the day after the end date.
Consecutive storm days
    Each storm day gets its own next-day inspection (storms on days d and d+1 give visits on
    d+1 and d+2): the visit on d+1 may precede d+1's rain.
Routine clock, ``clock="fixed"`` (default)
    Routine inspections fall on start + 7, start + 14, ... up to the end date, whatever storm
    inspections happen. The law states the two duties side by side ("every seven days and
    within 24 hours of any storm event") and says nothing about one replacing the other; a
    fixed weekly cadence never gives fewer inspections than either reading and keeps a
    predictable inspection weekday.
Routine clock, ``clock="rolling"``
    Any inspection restarts the 7-day clock (a storm inspection is a full site inspection of
    the same practices, so the next routine one is due 7 days after the latest visit of any
    kind). Offered because some reviewers accept it; confirm with the Stormwater Management
    Officer before using it.
Merging
    Inspections due on the same date are one visit listing every reason (a storm inspection
    due on a routine date is one visit, reasons "routine" and "storm"). A storm *on* a
    routine date is not merged: the routine visit that day may precede the rain, so the storm
    visit is the next day.
Storm events that span days (default, ``multiday_events=True``)
    The law says "within 24 hours of any storm event producing 0.5 inches of precipitation
    or more": a storm event, not a calendar day. An overnight storm often splits across two
    days (0.45 + 0.45 in) and neither day alone reaches the threshold. With daily data an
    event is taken as a run of consecutive days with measurable rain (>= 0.01 in); a run
    whose total reaches the threshold adds a visit on the day after the run ends (if none
    is already due then). This is the default because it follows the law's words; it only
    adds visits to the per-day reading. ``multiday_events=False`` (site file
    ``[construction] storm_event = "calendar_day"``) reads each calendar day alone; the
    schedule records which reading was used (``storm_event_reading``).

Symbols
-------
==================  ==========================================  ====
Name                Meaning                                     Unit
==================  ==========================================  ====
``precip_in``       daily rainfall                              in
``threshold_in``    rainfall of a storm day (0.5 in the laws)   in
``interval_days``   routine inspection interval (7)             d
==================  ==========================================  ====

References
----------
.. [1] Town of Shelter Island Code § 110-39C (inspections), § 110-38C (Conditions A-C).
.. [2] Village of Pelham Code ch. 83: maintenance during construction (inspections every 7
   days and within 24 h of 0.5 in; § 83-14B by inferred number) and construction inspection
   notices (§ 83-15A(1), inferred number).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from hydrocalc import display
from hydrocalc._validate import as_float_array, fmt_value, suggest
from hydrocalc.criteria.profiles import citation, load_profile
from hydrocalc.daily_rain import as_daily_series
from hydrocalc.errors import InputError

__all__ = [
    "MEASURABLE_IN",
    "STORM_EVENT_READINGS",
    "Inspection",
    "InspectionSchedule",
    "storm_days",
    "inspection_schedule",
    "schedule_for_profile",
    "Notice",
    "notice_schedule",
]

#: Smallest measurable daily rainfall (NOAA reports 0.01 in; a trace is recorded as 0). [in]
MEASURABLE_IN = 0.01
_TOL_IN = 1e-9
#: Readings of "storm event": ``"multi_day"`` (default, follows the law) or ``"calendar_day"``.
STORM_EVENT_READINGS = ("multi_day", "calendar_day")
_ONE_DAY = _dt.timedelta(days=1)


def _as_date(value, name: str) -> _dt.date:
    if isinstance(value, _dt.datetime):
        return value.date()
    if isinstance(value, _dt.date):
        return value
    if isinstance(value, pd.Timestamp):
        return value.date()
    if isinstance(value, str):
        try:
            return _dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise InputError(f"{name} must be a date (YYYY-MM-DD); got {value!r}")


def _daily_series(precip_in, start: _dt.date, end: _dt.date) -> pd.Series:
    s = as_daily_series(precip_in, allow_gaps=True)  # the one daily-rain rule
    first, last = s.index[0].date(), s.index[-1].date()
    if start < first or end > last:
        raise InputError(
            f"rainfall record must cover the construction period {start}..{end}; got "
            f"{first}..{last}. Use a longer record or shift a historical year "
            "(DailyRainfall.shift_years)."
        )
    s = s.loc[pd.Timestamp(start):pd.Timestamp(end)]
    full = pd.date_range(pd.Timestamp(start), pd.Timestamp(end), freq="D")
    missing = full.difference(s.index)
    if len(missing) or s.isna().any():
        first_missing = (missing[0] if len(missing) else s.index[s.isna().to_numpy()][0]).date()
        n = len(missing) + int(s.isna().sum())
        raise InputError(
            f"precip_in must have a value for every day of the construction period; got {n} "
            f"missing day(s), first {first_missing}. A missing day may hide a storm: fill it "
            "from a nearby station."
        )
    as_float_array(s, "precip_in", lower=0.0)
    return s.astype(float)


def storm_days(precip_in: pd.Series, threshold_in: float = 0.5) -> pd.Series:
    """Days with rainfall of at least ``threshold_in`` (exactly the threshold counts).

    Examples
    --------
    >>> p = pd.Series([0.49, 0.5, 1.2], index=pd.date_range("2027-04-01", periods=3))
    >>> storm_days(p).index.strftime("%m-%d").tolist()
    ['04-02', '04-03']
    """
    thr = float(as_float_array(threshold_in, "threshold_in", lower=0.0, lower_inclusive=False))
    daily = as_daily_series(precip_in, allow_gaps=True)
    return daily[daily.to_numpy() >= thr - _TOL_IN]


@dataclasses.dataclass(frozen=True)
class Inspection:
    """One site visit and every reason it serves."""

    date: _dt.date
    routine: bool
    storm: bool
    storm_dates: tuple[_dt.date, ...] = ()
    storm_precip_in: tuple[float, ...] = ()
    reasons: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class InspectionSchedule:
    """Required inspections over a construction period (see :func:`inspection_schedule`)."""

    start_date: _dt.date
    end_date: _dt.date
    interval_days: int
    threshold_in: float
    clock: str
    multiday_events: bool
    citation: str
    visits: tuple[Inspection, ...]
    precip_in: pd.Series

    @property
    def storm_event_reading(self) -> str:
        """``"multi_day"`` (storm events may span consecutive days) or ``"calendar_day"``."""
        return "multi_day" if self.multiday_events else "calendar_day"

    @property
    def storm_event_text(self) -> str:
        """One sentence for a report: which reading of "storm event" was used."""
        if self.multiday_events:
            return ("Storm events: a storm event may span consecutive wet days (a run of days "
                    f"with >= {fmt_value(MEASURABLE_IN)} in totalling "
                    f"{fmt_value(self.threshold_in)} in or more counts), as the law's "
                    "\"storm event\" reads.")
        return ("Storm events: each calendar day read alone (storm_event = \"calendar_day\"); "
                "an overnight storm split across two days below "
                f"{fmt_value(self.threshold_in)} in each triggers no visit.")

    @property
    def dates(self) -> list[_dt.date]:
        """Visit dates in order."""
        return [v.date for v in self.visits]

    @property
    def storm_days(self) -> list[_dt.date]:
        """Storm days within the period."""
        return [t.date() for t in storm_days(self.precip_in, self.threshold_in).index]

    def to_frame(self) -> pd.DataFrame:
        """One row per visit: date, routine, storm, storm_dates, storm_precip_in, reasons."""
        rows = [
            {
                "date": v.date,
                "weekday": v.date.strftime("%a"),
                "routine": v.routine,
                "storm": v.storm,
                "storm_dates": ", ".join(d.isoformat() for d in v.storm_dates),
                "storm_precip_in": ", ".join(f"{p:.2f}" for p in v.storm_precip_in),
                "reasons": "; ".join(v.reasons),
            }
            for v in self.visits
        ]
        cols = ["date", "weekday", "routine", "storm", "storm_dates", "storm_precip_in",
                "reasons"]
        return pd.DataFrame(rows, columns=cols)

    def count_by_month(self) -> pd.DataFrame:
        """Visits per calendar month: total, routine only, storm only, both, storm days."""
        months = pd.period_range(self.start_date, max(self.end_date,
                                 self.visits[-1].date if self.visits else self.end_date),
                                 freq="M")
        out = pd.DataFrame(0, index=months.astype(str),
                           columns=["visits", "routine_only", "storm_only",
                                    "routine_and_storm", "storm_days"])
        out.index.name = "month"
        for v in self.visits:
            m = f"{v.date:%Y-%m}"
            out.loc[m, "visits"] += 1
            col = ("routine_and_storm" if v.routine and v.storm
                   else "routine_only" if v.routine else "storm_only")
            out.loc[m, col] += 1
        for d in self.storm_days:
            out.loc[f"{d:%Y-%m}", "storm_days"] += 1
        return out

    def to_dict(self) -> dict:
        """JSON-serialisable summary with every visit."""
        return {
            "start_date": self.start_date.isoformat(),
            "end_date": self.end_date.isoformat(),
            "interval_days": self.interval_days,
            "threshold_in": self.threshold_in,
            "clock": self.clock,
            "multiday_events": self.multiday_events,
            "storm_event_reading": self.storm_event_reading,
            "storm_event_text": self.storm_event_text,
            "citation": self.citation,
            "n_visits": len(self.visits),
            "n_storm_days": len(self.storm_days),
            "visits": [
                {"date": v.date.isoformat(), "routine": v.routine, "storm": v.storm,
                 "storm_dates": [d.isoformat() for d in v.storm_dates],
                 "storm_precip_in": list(v.storm_precip_in), "reasons": list(v.reasons)}
                for v in self.visits
            ],
            "by_month": self.count_by_month().reset_index().to_dict(orient="records"),
        }

    def _repr_html_(self) -> str:
        return display.html(self)

    def __repr__(self) -> str:
        return display.text(self)

    def figure(self, *, columns: int = 3):
        """Calendar-style figure: one month per panel, visits coloured by reason.

        Returns
        -------
        matplotlib.figure.Figure
        """
        import calendar

        import matplotlib

        matplotlib.use("Agg", force=False)
        from matplotlib.figure import Figure
        from matplotlib.patches import Patch, Rectangle

        colours = {"routine": "#4C78A8", "storm": "#F58518", "both": "#B279A2"}
        by_date = {v.date: v for v in self.visits}
        last = max([self.end_date] + [v.date for v in self.visits])
        months = pd.period_range(self.start_date, last, freq="M")
        n = len(months)
        ncol = min(columns, n)
        nrow = int(np.ceil(n / ncol))
        fig = Figure(figsize=(3.2 * ncol, 2.9 * nrow + 0.6))
        rain = self.precip_in
        for k, per in enumerate(months):
            ax = fig.add_subplot(nrow, ncol, k + 1)
            cal = calendar.Calendar(firstweekday=0).monthdatescalendar(per.year, per.month)
            for row, week in enumerate(cal):
                for col, day in enumerate(week):
                    if day.month != per.month:
                        continue
                    y = 5 - row
                    in_period = self.start_date <= day <= self.end_date
                    face = "white" if in_period else "#EEEEEE"
                    v = by_date.get(day)
                    if v is not None:
                        face = colours["both" if v.routine and v.storm
                                       else "routine" if v.routine else "storm"]
                    ax.add_patch(Rectangle((col, y), 1, 1, facecolor=face, edgecolor="#999999",
                                           lw=0.5))
                    ax.text(col + 0.08, y + 0.92, str(day.day), fontsize=6, va="top")
                    ts = pd.Timestamp(day)
                    if ts in rain.index and rain.loc[ts] >= self.threshold_in - _TOL_IN:
                        ax.text(col + 0.5, y + 0.3, f"{rain.loc[ts]:.2f}", fontsize=5.5,
                                ha="center", color="#003366", weight="bold")
            ax.set_xlim(0, 7)
            ax.set_ylim(0, 6)
            ax.set_xticks(np.arange(7) + 0.5, ["M", "T", "W", "T", "F", "S", "S"], fontsize=6)
            ax.xaxis.tick_top()
            ax.set_yticks([])
            ax.tick_params(length=0)
            ax.set_title(f"{calendar.month_name[per.month]} {per.year}", fontsize=8, pad=12)
            ax.set_aspect("equal")
            for sp in ax.spines.values():
                sp.set_visible(False)
        handles = [Patch(facecolor=colours["routine"], label="routine (every "
                         f"{self.interval_days} days)"),
                   Patch(facecolor=colours["storm"], label="storm (day after >= "
                         f"{fmt_value(self.threshold_in)} in)"),
                   Patch(facecolor=colours["both"], label="routine + storm"),
                   Patch(facecolor="#EEEEEE", label="outside construction")]
        fig.legend(handles=handles, loc="lower center", ncol=4, fontsize=7, frameon=False)
        fig.suptitle(f"Required inspections {self.start_date} to {self.end_date} "
                     f"({self.citation}); numbers: storm-day rainfall [in]", fontsize=8)
        fig.tight_layout(rect=(0, 0.05, 1, 0.96))
        return fig


def inspection_schedule(
    start_date,
    end_date,
    precip_in: pd.Series,
    *,
    interval_days: int = 7,
    threshold_in: float = 0.5,
    clock: str = "fixed",
    multiday_events: bool = True,
    citation: str = "",
) -> InspectionSchedule:
    """Every required inspection between construction start and end.

    Parameters
    ----------
    start_date, end_date : date or "YYYY-MM-DD"
        Construction period, both included.
    precip_in : pandas.Series
        Daily rainfall on a DatetimeIndex covering the period, no missing days. [in]
    interval_days : int
        Routine interval (7 in both laws). [d]
    threshold_in : float
        Daily rainfall that triggers a storm inspection (0.5 in both laws). [in]
    clock : {"fixed", "rolling"}
        Whether routine inspections keep a fixed weekly cadence from the start date
        (default) or restart 7 days after any visit (see the module docstring).
    multiday_events : bool, default True
        Storm events may span consecutive days (the reading that follows the law, see the
        module docstring): a run of consecutive wet days totalling the threshold is a storm
        event. ``False`` reads each calendar day alone (``storm_event = "calendar_day"`` in
        the site file).
    citation : str
        Section cited in the reasons (e.g. "§ 110-39C").

    Returns
    -------
    InspectionSchedule

    Examples
    --------
    A 0.5-inch day exactly, on day 3 of a 14-day job:

    >>> p = pd.Series(0.0, index=pd.date_range("2027-04-01", "2027-04-14"))
    >>> p["2027-04-03"] = 0.50
    >>> s = inspection_schedule("2027-04-01", "2027-04-14", p)
    >>> [(str(v.date), v.routine, v.storm) for v in s.visits]
    [('2027-04-04', False, True), ('2027-04-08', True, False)]
    """
    start = _as_date(start_date, "start_date")
    end = _as_date(end_date, "end_date")
    if end < start:
        raise InputError(f"end_date must be on or after start_date ({start}); got {end}")
    if isinstance(interval_days, bool) or not isinstance(interval_days, int | np.integer) \
            or interval_days < 1:
        raise InputError(f"interval_days must be a whole number >= 1; got {interval_days!r}")
    if clock not in ("fixed", "rolling"):
        raise InputError(f"clock must be 'fixed' or 'rolling'; got {clock!r}"
                         f"{suggest(str(clock), ('fixed', 'rolling'))}")
    thr = float(as_float_array(threshold_in, "threshold_in", lower=0.0, lower_inclusive=False))
    p = _daily_series(precip_in, start, end)
    cite = f" ({citation})" if citation else ""

    # storm triggers: due date -> list of (storm date, depth, label)
    due: dict[_dt.date, list[tuple[_dt.date, float, str]]] = {}
    for ts, depth in storm_days(p, thr).items():
        d = ts.date()
        due.setdefault(d + _ONE_DAY, []).append(
            (d, float(depth), f"storm: {depth:.2f} in on {d} (>= {fmt_value(thr)} in); "
                              f"within 24 h = by the next day{cite}")
        )
    if multiday_events:
        wet = (p.to_numpy() >= MEASURABLE_IN - _TOL_IN)
        i = 0
        n = len(p)
        while i < n:
            if not wet[i]:
                i += 1
                continue
            j = i
            while j + 1 < n and wet[j + 1]:
                j += 1
            total = float(p.iloc[i:j + 1].sum())
            if j > i and total >= thr - _TOL_IN:
                d0, d1 = p.index[i].date(), p.index[j].date()
                key = d1 + _ONE_DAY
                label = (f"storm event: {total:.2f} in over {d0}..{d1} (>= {fmt_value(thr)} in,"
                         f" multi-day){cite}")
                if key not in due:  # a single-day storm visit that day already serves it
                    due[key] = [(d1, total, label)]
            i = j + 1

    routine_label = f"routine: every {interval_days} days{cite}"
    visits: list[Inspection] = []
    if clock == "fixed":
        routine = {start + k * _dt.timedelta(days=interval_days)
                   for k in range(1, (end - start).days // interval_days + 1)}
        all_days = sorted(routine | set(due))
        for d in all_days:
            storms = due.get(d, [])
            is_r = d in routine
            visits.append(_visit(d, is_r, storms, routine_label))
    else:
        last = start
        d = start + _ONE_DAY
        stop = max([end] + list(due))
        while d <= stop:
            is_r = d == last + _dt.timedelta(days=interval_days) and d <= end
            storms = due.get(d, [])
            if is_r or storms:
                v = _visit(d, is_r, storms, routine_label)
                if storms and not is_r and d <= end:
                    v = dataclasses.replace(
                        v, reasons=v.reasons + ("7-day clock restarts (clock='rolling')",)
                    )
                visits.append(v)
                last = d
            d += _ONE_DAY
    return InspectionSchedule(
        start_date=start,
        end_date=end,
        interval_days=int(interval_days),
        threshold_in=thr,
        clock=clock,
        multiday_events=bool(multiday_events),
        citation=citation,
        visits=tuple(visits),
        precip_in=p,
    )


def _visit(d, is_routine, storms, routine_label) -> Inspection:
    reasons = ([routine_label] if is_routine else []) + [lbl for _, _, lbl in storms]
    return Inspection(
        date=d,
        routine=is_routine,
        storm=bool(storms),
        storm_dates=tuple(s for s, _, _ in storms),
        storm_precip_in=tuple(v for _, v, _ in storms),
        reasons=tuple(reasons),
    )


def schedule_for_profile(
    profile,
    start_date,
    end_date,
    precip_in: pd.Series,
    *,
    threshold_in: float | None = None,
    interval_days: int | None = None,
    clock: str = "fixed",
    multiday_events: bool = True,
) -> InspectionSchedule:
    """:func:`inspection_schedule` with the interval, threshold and citation of a profile.

    Parameters
    ----------
    profile : str or RegulationProfile
        ``"shelter_island"``, ``"pelham"`` or ``"nys_generic"``.
    threshold_in, interval_days : optional
        Override the profile's values; required for ``nys_generic``, whose CGP values were
        not verified.

    Raises
    ------
    InputError
        When the profile has no verified value and none is given.
    """
    prof = load_profile(profile)
    thr = threshold_in if threshold_in is not None else prof.inspection_threshold_in
    iv = interval_days if interval_days is not None else prof.inspection_interval_days
    if thr is None or iv is None:
        raise InputError(
            f"inspection_threshold_in and inspection_interval_days must be given for profile "
            f"{prof.key!r} (no verified inspection rule); got threshold "
            f"{thr!r}, interval {iv!r}. Add them to [construction] or pass them."
        )
    cite = prof.cite("inspections") if prof.inspections.get("section") else ""
    return inspection_schedule(start_date, end_date, precip_in, interval_days=int(iv),
                               threshold_in=float(thr), clock=clock,
                               multiday_events=multiday_events, citation=cite)


@dataclasses.dataclass(frozen=True)
class Notice:
    """An advance notice before a milestone (Pelham 48-hour notices)."""

    milestone_key: str
    milestone_text: str
    letter: str
    milestone_at: _dt.datetime
    date_only: bool
    notice_due: _dt.datetime
    notify_by_date: _dt.date
    citation: str


def notice_schedule(profile, milestones: Iterable) -> list[Notice]:
    """Advance notices due before construction milestones.

    Parameters
    ----------
    profile : str or RegulationProfile
        A profile with notice milestones (``"pelham"``); others give an empty list.
    milestones : iterable
        :class:`hydrocalc.site.project.Milestone` objects, ``(key, date_or_datetime)`` pairs or
        mappings with ``key`` and ``date``.

    Returns
    -------
    list of Notice
        Sorted by due time. ``notice_due = milestone - hours_before``. A date without a time
        is taken at 00:00 (the earliest moment of that day, so the notice is on time
        whatever hour work starts); ``notify_by_date`` is the last calendar day on which a
        notice meets the deadline.

    Examples
    --------
    >>> import datetime
    >>> n = notice_schedule("pelham", [("start_of_construction", datetime.date(2027, 4, 12))])
    >>> n[0].notice_due, n[0].notify_by_date
    (datetime.datetime(2027, 4, 10, 0, 0), datetime.date(2027, 4, 9))
    """
    prof = load_profile(profile)
    hours = float(prof.notices.get("hours_before", 0) or 0)
    by_key = {m.key: m for m in prof.notice_milestones}
    out: list[Notice] = []
    for item in milestones:
        if hasattr(item, "key") and hasattr(item, "when"):
            key, when = item.key, item.when
        elif isinstance(item, Mapping):
            key, when = item.get("key"), item.get("date")
        else:
            key, when = item
        if key not in by_key:
            valid = list(by_key)
            raise InputError(
                f"milestone key must be one of the {prof.key} notice milestones; got {key!r}"
                f"{suggest(str(key), valid)} Valid: {', '.join(valid) or '(none)'}"
            )
        if isinstance(when, _dt.datetime):
            at, date_only = when, False
        elif isinstance(when, _dt.date):
            at, date_only = _dt.datetime.combine(when, _dt.time(0, 0)), True
        else:
            raise InputError(f"milestone {key} date must be a date or datetime; got {when!r}")
        due = at - _dt.timedelta(hours=hours)
        notify_by = (due - _dt.timedelta(microseconds=1)).date() if due.time() == _dt.time(0) \
            else due.date()
        m = by_key[key]
        out.append(Notice(key, m.text, m.letter, at, date_only, due, notify_by,
                          citation(f"{prof.notices.get('section', '')}({m.letter})",
                                    bool(prof.notices.get("inferred", False)))))
    return sorted(out, key=lambda n: (n.notice_due, n.milestone_key))
