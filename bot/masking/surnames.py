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
    walsh mccarthy doyle kavanagh nolan duffy keane lynch moran dunne mcgrath connolly ocallaghan oneill
    odonnell nwachukwu chukwu okoro okonjo uzoma ogunbiyi ogunleye bamidele
    adewale adeleke akinola balogun bello danjuma lawal ogunlesi olawale sanusi abubakar aliyu igwe ugwu onyeka
    anyanwu ekwueme nwankwo obiora chukwuma asante boateng owusu agyeman appiah liang zheng cheng xiao
    jiang deng feng zeng yuan qian tian venkataraman raghunathan subramaniam mukherjee ganguly dasgupta sengupta
    chakraborty bhattacharya agarwal aggarwal bansal goyal jain mittal saxena srivastava trivedi pandey mishra dubey
    chaudhary naidu ramanathan natarajan narayanan gopalan balasubramanian srinivasan rajan kurian varghese patil
    deshpande gokhale bhat hegde shetty kamath prabhu sethi arora bhatia khanna sinha verma thakur rathore chauhan
    rajput mansour saleh khalil hamdan aziz awad habib khoury najjar sabbagh hijazi qureshi siddiqui ansari hashmi
    chaudhry rashid mansoori kuznetsova ivanova smirnova sokolova popova novikova
    morozova wisniewska kowalska nowakowska kaminska lewandowska zielinska szymanski wozniak kozlowski jankowski
    mazur krawczyk piotrowski grabowski pawlowski michalski prochazka kucera vesely horak nemec pokorny hajek
    jelinek ruzicka benes fiala sedlacek dolezal zeman kolar navratil cermak blaha ivanovic nikolic markovic
    djordjevic stojanovic pavlovic kovalenko shevchenko bondarenko tkachenko kravchenko melnyk boyko koval lysenko
    nunez pena munoz ibanez dominguez jimenez medina aguilar ortega rubio marin sanz iglesias garrido cortes santana
    guerrero mendez cabrera fuentes carrasco caballero nieto pascual herrero montero hidalgo gallego vazquez calvo
    velasco vidal soto rojas contreras salazar espinoza sandoval figueroa valenzuela cardenas pacheco campos orozco
    ochoa villanueva zamora acosta mejia ibarra hoang phan huynh duong truong dinh luong trinh quach vuong
    schaefer schafer schaeffer schroeder neumann koch lefevre lefebvre leroy damico deluca moretti giordano rizzo
    mancini santoro rinaldi caruso wrobel dabrowski kwiatkowski alfarsi alharbi alqahtani alghamdi alzahrani
    alshehri kjaergaard thorsson ostby conceicao
"""
FAMILY_NAMES = frozenset(_FAMILY_NAMES_TEXT.split())
