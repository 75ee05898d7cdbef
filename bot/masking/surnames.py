"""Common family names across cultures, as logins spell them (ASCII, lowercase).

A cluster hands out logins built from a person's family name: an initial and the family name
(`framirez`, `labernathy`, `zeriksen`), the family name and a number (`eriksen12`), or the given
and family names joined (`irene_ueda`). The shape alone cannot tell `framirez` from a tool's
name (`fr` begins many English words, `la`/`ze` are a consonant and a vowel), but the family
name after the initial can: owners.person_login reads these logins against this list.

Four letters or more; none that is also an English word or an ML term (`young`, `king`,
`park`, `stone`, `bert`), so an initial before a word (`spark`, `sking`) is no one's login.
"""

from __future__ import annotations

_FAMILY_NAMES_TEXT = """
    abernathy adams allen alvarez anderson andersson andrade araujo arnold atkinson bailey baker barbieri barnes
    bauer becker bennett bergstrom berg bianchi bjornstad blanco brandt brennan brooks bruno byrne cameron campbell
    carlsson carter carvalho castillo castro chandler chavez clarke coleman collins colombo conti costa cruz
    dasilva davies delgado demir diaz dimitrov dubois duncan dunn edwards eriksen eriksson esposito evans farouk
    fernandes fernandez ferrari ferreira fischer fitzgerald flores fontana foster fraser friedman fuchs gallagher
    garcia gomes gomez gonzalez graham greco gupta gutierrez haddad hahn hansen harris hartmann hayes herrera
    hernandez hoffmann hofmann horvath hughes iyer ionescu ivanov jackson jansen jensen johansson johnson jones
    kaiser kapoor kaufmann keller kelly kennedy kovacs kowalczyk kowalski kozlov kruger krishnan kumar larsen larsson
    lehmann lindgren lindqvist lindberg lombardi lopez lorenz lundberg maier marino martin martinez mehta meier
    mendes mendoza meyer miller mitchell moreau moreno morozov muller murphy nakamura nielsen nguyen novak nowak
    nwosu obrien okafor okonkwo oliveira olsen olsson omalley ortiz osei papadopoulos patel pereira perez peters
    petrov petrova popescu popov quinn ramirez ramos reddy reyes ricci richter rivera roberts robinson rodrigues
    rodriguez romano romero rossi ruiz russo saito sanchez santos sato schmidt schneider schulz schwarz shah sharma
    silva singh smirnov smith sokolov sorensen suzuki svensson takahashi tanaka thompson torres tran vargas
    vasquez vogel volkov wagner walker watanabe weber wilson wojcik wolf yamamoto yilmaz zhang zielinski
    abdullah ahmadi alsayed aydin bakker banerjee chatterjee dekker desai dijkstra hosseini hussain jovanovic
    kaya karimi khan   mensah nair novotny oconnor ogunleyo okeke pham petrovic rahman sahin sousa tiwari
    ueda vandenberg visser wang yadav yildiz zhou chen huang zhao yang horvat nagy molnar szabo varga kowal
    lewandowski wisniewski kaminski dvorak svoboda cerny kuznetsov pavlov lebedev novikov fedorov hashemi nazari
    rezaei oyelaran adeyemi adebayo afolabi mwangi kamau otieno haile tesfaye mahlangu dlamini nkosi ndlovu
    oconnell osullivan schuster wolff krause zimmermann braun werner jung hartung ohalloran mcdonald macleod
    ferrer navarro molina serrano blanc girard bonnet mercier lambert fontaine rousseau vincent laurent
    janssen devries boer mulder hendriks nilsson persson gustafsson lund halvorsen haugen dahl strand
    kaur malhotra chopra joshi kulkarni pillai menon subramanian venkatesh yoshida yamada kobayashi inoue
    kimura hayashi matsumoto nakajima okada ishikawa choi jeong kang yoon shin
"""
FAMILY_NAMES = frozenset(_FAMILY_NAMES_TEXT.split())
